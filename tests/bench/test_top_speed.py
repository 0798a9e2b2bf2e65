"""bench/top_speed.py --quick: each thread count's figure comes out (lanes alone: the anchor is not built here); its
bad arguments are refused in one line before anything runs. Speeds are never asserted."""

import os
import re
import subprocess
import sys

import pytest

from conftest import BINARY, REPO

SCRIPT = REPO / "bench" / "top_speed.py"


def top_speed(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "LANES_BINARY": str(BINARY)})


def test_quick_run_gives_lanes_rate_at_each_thread_count():
    completed = top_speed("--quick", "--threads", "1,2")
    assert completed.returncode == 0, completed.stderr
    for threads in (1, 2):
        line = re.search(rf"^{threads} thread\(s\), 200,000 events: lanes +[0-9.]+ M/s \[.*\], whole process .*$",
                         completed.stdout, re.MULTILINE)
        assert line, completed.stdout
    assert "anchor: not measured" in completed.stdout


@pytest.mark.parametrize("args, message", [
    (["--threads", "0"], "--threads takes positive counts"),
    (["--threads", "one"], "--threads takes counts separated by commas"),
    (["--rounds", "0"], "--rounds and --events take a positive count"),
    (["--anchor", "/nonexistent/threaded_io_test"], "no such executable"),
])
def test_bad_arguments_are_refused_in_one_line(args, message):
    completed = top_speed(*args)
    assert completed.returncode == 2
    assert message in completed.stderr
    assert completed.stdout == ""
