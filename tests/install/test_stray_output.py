"""What other code writes to stderr behind lanes' back (tests/install/plugins/Stray.cpp writes as ROOT's
decompressors do: fprintf(stderr) and std::cerr lines) never reaches the user as raw lines in the middle of a job: a
job that succeeds counts them in one warning and keeps the first in its report (`stray_output`); one that fails
quotes them in its one-line error. lanes' own lines still come through."""

import json

import pytest

from installed import run

STRAY = ["R__unzipStray: line 1 of 2 from fprintf", "R__unzipStray: line 2 of 2 from fprintf",
         "Error in stray: a line from std::cerr"]


def stray_job(installed, *args, cwd, module="stray"):
    return run(installed, "run", "-t", "2", "-n", "20", "--plugin-library", installed.stray, "--source", "empty",
               "--module", module, "--report", "report.json", *map(str, args), cwd=cwd)


@pytest.mark.parametrize("processes", [[], ["--processes", 2, "--distribution", "round-robin"]], ids=["one process", "two processes"])
def test_a_job_that_succeeds_counts_the_stray_lines_in_one_warning(installed, processes, tmp_path):
    result = stray_job(installed, *processes, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    # one worker or two wrote them, each in its 5th event
    writers = 2 if processes else 1
    assert lines == [f"lanes: warning: {3 * writers} lines written to stderr behind lanes' back: '{STRAY[0]}' "
                     f"(and {3 * writers - 1} more) (the report's stray_output keeps them)"], lines
    report = json.loads((tmp_path / "report.json").read_text())
    parts = [w["report"] for w in report["workers"]] if processes else [report]
    assert [part["stray_output"] for part in parts] == [{"lines": 3, "first": STRAY}] * writers


def test_a_job_that_fails_quotes_them_in_its_one_line_error(installed, tmp_path):
    result = stray_job(installed, cwd=tmp_path, module="stray:fail=true")
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanes: error: module 'stray'"), lines
    assert lines[0].endswith(f"stray: failed as asked; 3 lines written to stderr behind lanes' back: '{STRAY[0]}' "
                             "(and 2 more)"), lines[0]


def test_lanes_own_lines_come_through_and_a_quiet_job_has_no_stray_output(installed, tmp_path):
    result = stray_job(installed, "--progress", "0.001", cwd=tmp_path, module="stray:lines=0,at=1000")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("lanes: progress: ") for line in lines), lines
    assert "stray_output" not in json.loads((tmp_path / "report.json").read_text())
