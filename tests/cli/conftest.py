"""Helpers for the end-to-end tests of the `lanes` command: run it, read its JSON report."""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("LANES_BINARY", REPO / "build" / "bin" / "lanes"))


class Result:
    def __init__(self, completed, report_path):
        self.returncode = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        self.report = json.loads(report_path.read_text()) if report_path.exists() else None


@pytest.fixture
def lanes(tmp_path):
    """Runs `lanes ARGS...` (with --report into tmp_path for `run`) and returns a Result."""

    def run(*args, report=True, timeout=120):
        args = [str(a) for a in args]
        report_path = tmp_path / "report.json"
        if report and args and args[0] == "run":
            args += ["--report", str(report_path)]
        completed = subprocess.run(
            [str(BINARY), *args], capture_output=True, text=True, timeout=timeout, cwd=tmp_path, stdin=subprocess.DEVNULL
        )
        return Result(completed, report_path)

    return run
