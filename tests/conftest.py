"""Shared by the end-to-end tests of the `lanes` command (tests/cli, tests/root): run it, read its JSON report.

The binary is $LANES_BINARY (CTest sets it), by default build/bin/lanes of this checkout.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BINARY = Path(os.environ.get("LANES_BINARY", REPO / "build" / "bin" / "lanes"))


class Result:
    def __init__(self, completed, report_path):
        self.returncode = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        self.report = json.loads(report_path.read_text()) if report_path.exists() else None


def run_lanes(*args, cwd, report=True, timeout=120):
    """Runs `lanes ARGS...` in `cwd` (with --report cwd/report.json for `run`) and returns a Result."""
    args = [str(a) for a in args]
    report_path = Path(cwd) / "report.json"
    report_path.unlink(missing_ok=True)  # a later job in the same directory must not see an earlier one's report
    if report and args and args[0] == "run":
        args += ["--report", str(report_path)]
    completed = subprocess.run(
        [str(BINARY), *args], capture_output=True, text=True, timeout=timeout, cwd=cwd, stdin=subprocess.DEVNULL
    )
    return Result(completed, report_path)


@pytest.fixture
def lanes(tmp_path):
    """Runs `lanes ARGS...` (with --report into tmp_path for `run`) and returns a Result."""

    def run(*args, report=True, timeout=120):
        return run_lanes(*args, cwd=tmp_path, report=report, timeout=timeout)

    return run
