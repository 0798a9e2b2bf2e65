"""bench/write_speed.py --quick: every figure it prints comes out, for two writers on the 200-event object-branch
file; and its bad arguments are refused in one line before anything runs. Speeds are never asserted."""

import json
import os
import subprocess
import sys

import pytest

from conftest import BINARY, REPO

SCRIPT = REPO / "bench" / "write_speed.py"


def write_speed(*args, out):
    return subprocess.run([sys.executable, str(SCRIPT), *args, "--out", str(out)], capture_output=True, text=True,
                          timeout=240, env={**os.environ, "LANES_BINARY": str(BINARY)})


def test_quick_run_gives_every_figure_of_each_writer(tmp_path):
    completed = write_speed("--quick", "--inputs", "objects", "--writers", "root,rntuple", "--variant",
                            "root:imt=false", out=tmp_path)
    assert completed.returncode == 0, completed.stderr
    results = json.loads((tmp_path / "write_speed.json").read_text())
    [objects] = results["inputs"]
    assert set(objects["reading_events_per_s"]) == {"1", "2"}
    assert objects["floor"]["events"]["median"] == 200
    assert [row["writer"] for row in objects["writers"]] == ["root", "rntuple", "root imt=false"]
    for row in objects["writers"]:
        assert set(row["events_per_s"]) == {"1", "2"}
        assert all(spread["median"] > 0 for spread in row["events_per_s"].values())
        assert row["bytes"] > 0
        for figure in ("over_read", "over_floor", "ceiling", "write_us_per_event"):
            assert figure in row, figure
        assert set(row["extra_cpu_us_per_event"]) == {"2"}
    assert set(objects["reading_extra_cpu_us_per_event"]) == {"2"}
    assert "| object branches, 200 events | root | " in completed.stdout
    assert "ROOT's fill loop (bench_root_fill)" in completed.stdout


@pytest.mark.parametrize("args, message", [
    (["--writers", "root,tape"], "--writers: unknown tape"),
    (["--variant", "tape:level=1"], "--variant: unknown tape"),
    (["--variant", "root"], "--variant takes PLUGIN:OPTIONS"),
    (["--threads", "2"], "--threads starts at 1"),
    (["--inputs", "files"], "--inputs: unknown files"),
    (["--quick", "--anchor", "/bin/true"], "leave out --quick"),
])
def test_bad_arguments_are_refused_in_one_line(tmp_path, args, message):
    completed = write_speed(*args, out=tmp_path)
    assert completed.returncode == 2
    assert message in completed.stderr.strip().splitlines()[-1]
    assert not (tmp_path / "write_speed.json").exists()
