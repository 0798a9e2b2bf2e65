"""Progress of long jobs: heartbeat lines every --progress SECONDS when stderr is not a terminal. Nothing here
depends on timing: the jobs run long enough for one period, and the last line always comes."""

import json
import os
import pty
import re
import select
import subprocess

import pytest

from faults import BINARY, run_limited

LINE = re.compile(r"lanes: progress( (?P<part>worker-\d+))?: (?P<events>\d+) events, [\d.]+ ev/s, [\d.]+ s"
                  r"(?P<total>, [\d.]+% of (?P<of>\d+))?(?P<eta>, ETA [\d.]+ s)?(?P<last>, finished)?$")
# About 0.5 s of CPU: a job much longer than the 0.05 s period, even on an idle machine.
SLOW = ["--source", "empty", "--module", "analyzer:time=0.0002,concurrency=one", "--output", "dummy"]


def progress_lines(result):
    lines = [line for line in result.stderr.splitlines() if line.startswith("lanes: progress")]
    for line in lines:
        assert LINE.match(line), line
    return [LINE.match(line) for line in lines]


def test_heartbeat_with_a_known_total(tmp_path):
    result = run_limited("run", "-n", "2500", "-t", "2", *SLOW, "--progress", "0.05", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = progress_lines(result)
    assert len(lines) >= 2, result.stderr
    assert all(line["of"] == "2500" for line in lines)
    assert any(line["eta"] for line in lines[:-1]), result.stderr
    assert lines[-1]["last"] and not lines[-1]["eta"]
    assert int(lines[-1]["events"]) == result.report["events"] == 2500
    assert [int(line["events"]) for line in lines] == sorted(int(line["events"]) for line in lines)


def test_heartbeat_with_the_sources_count(tmp_path):
    result = run_limited("run", "-n", "0", "--source", "empty:events=40", "--output", "dummy", "--progress", "30",
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = progress_lines(result)
    assert lines and lines[-1]["last"] and lines[-1]["of"] == "40" and lines[-1]["events"] == "40"


def test_heartbeat_without_a_total_until_stopped(tmp_path):
    result = run_limited("run", "-n", "0", "--endless", "-t", "2", "--source", "empty", "--module",
                         "fault:at=200,action=terminate", "--output", "dummy", "--progress", "0.05", cwd=tmp_path)
    assert result.returncode == 143, result.stderr
    lines = progress_lines(result)
    assert lines and not any(line["total"] for line in lines)
    assert int(lines[-1]["events"]) == result.report["events"]


def on_a_terminal(tmp_path, *args):
    """Runs `lanes run ARGS` with stderr on a pseudo-terminal; returns its exit status and what the terminal got."""
    primary, secondary = pty.openpty()
    process = subprocess.Popen([str(BINARY), "run", *map(str, args)], cwd=tmp_path, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=secondary)
    os.close(secondary)
    shown = b""
    while True:  # until the job closes the terminal's other end (reading on would fail)
        ready, _, _ = select.select([primary], [], [], 120)
        assert ready, "the job neither wrote nor ended within 120 s"
        try:
            chunk = os.read(primary, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(primary)
    return process.wait(timeout=120), shown.decode()


@pytest.mark.parametrize("processes", [[], ["--processes", 2]], ids=["single", "processes"])
def test_a_live_line_on_a_terminal(tmp_path, processes):
    code, shown = on_a_terminal(tmp_path, "-n", 1000, "-t", 1, *processes, *SLOW)
    assert code == 0, shown
    assert "lanes: progress" not in shown  # a line redrawn in place, not heartbeats
    drawn = [text for text in shown.split("\r") if text.strip()]
    assert drawn and all(re.match(r"  \d+ events  [\d.]+ ev/s  [\d.]+s  [\d.]+%", text) for text in drawn), shown
    assert re.match(r"  1000 events  [\d.]+ ev/s  [\d.]+s  100\.0%\x1b\[K$", drawn[-1]), repr(drawn[-1])
    assert shown.endswith("\n")


def test_json_lines_reach_stderr_as_lanes_own(tmp_path):
    # stderr is captured (what ROOT writes behind lanes' back is kept); the JSON lines are lanes' own and pass
    result = run_limited("run", "-n", "200", *SLOW, "--progress-json", "--progress", "0.05", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    assert lines and lines[-1]["events"] == 200 and lines[-1]["finished"] is True


@pytest.mark.parametrize("processes", [[], ["--processes", 2]], ids=["single", "processes"])
def test_no_progress_lines_unless_asked_for_off_a_terminal(tmp_path, processes):
    result = run_limited("run", "-n", "200", *processes, *SLOW, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


@pytest.mark.parametrize("mode", [[], ["--distribution", "round-robin"], ["--no-fork"], ["--events-before-fork", 100]],
                         ids=["queue", "round-robin", "no-fork", "before-fork"])
def test_a_multi_process_job_prints_one_summed_line(tmp_path, mode):
    # The parent sums its workers' counts (and its own events before the fork): one line for the whole job, with
    # the job's total; the workers print none.
    result = run_limited("run", "--processes", "2", "-t", "1", "-n", "1000", *mode, *SLOW, "--progress", "0.05",
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = progress_lines(result)
    assert len(lines) >= 2, result.stderr
    assert not any(line["part"] for line in lines), result.stderr
    assert all(line["of"] == "1000" for line in lines), result.stderr
    assert any(line["eta"] for line in lines[:-1]), result.stderr
    assert [bool(line["last"]) for line in lines] == [False] * (len(lines) - 1) + [True]
    counts = [int(line["events"]) for line in lines]
    assert counts == sorted(counts)
    assert counts[-1] == sum(worker["events"] for worker in result.report["workers"]) + int(
        mode[-1] if "--events-before-fork" in mode else 0) == result.report["events"] == 1000


def test_a_multi_process_jobs_line_drops_the_count_of_a_worker_that_died(tmp_path):
    # The replacement does the dead worker's events again: they count once.
    once = tmp_path / "crashed-once"
    result = run_limited("run", "--processes", "2", "-t", "1", "-n", "1000", "--retry-lost", *SLOW, "--module",
                         f"fault:at=500,action=abort,once={once}", "--progress", "0.05", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert once.exists()
    lines = progress_lines(result)
    assert lines and int(lines[-1]["events"]) == result.report["events"] == 1000, result.stderr
