"""Signals to a job and to its whole process group (a terminal's Ctrl-C, a batch system's SIGTERM, a closed
session's SIGHUP), a second Ctrl-C, a parent killed under its workers, and the partial files killed jobs leave.

Every job runs as the leader of its own process group, as a shell starts it, so that a signal to the group
reaches the parent and every worker at once. No sleeps: the jobs are signalled once a `fault` module's marker file
shows that events have been processed, and every wait polls with a generous timeout.
"""

import json
import os
import signal
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from faults import BINARY, Result, assert_nothing_under, assert_one_line_error, event_count, wait_for

DATA = Path(__file__).resolve().parents[2] / "data" / "files"
# Events numbered 1..2421 then again (repeat=), two scalar branches; the analyzer makes an event last ~1 ms.
SOURCE = f"root:file={DATA / 'uproot-HZZ-objects.root'},tree=events,branches=num_primaryvertex,branches=eventweight,repeat=100"
SLOW = "analyzer:time=0.001,work=sleep"
MODES = {"single": [], "processes": ["--processes", 2], "no-fork": ["--processes", 2, "--no-fork"]}


@contextmanager
def group_job(tmp_path, *args):
    """Starts `lanes run ARGS --report tmp_path/report.json` in a process group of its own (stderr into
    tmp_path/stderr.txt) and yields the Popen; the whole group is killed if it still runs when the block ends."""
    command = [str(BINARY), "run", *[str(a) for a in args], "--report", str(tmp_path / "report.json")]
    with open(tmp_path / "stderr.txt", "w") as stderr:
        process = subprocess.Popen(command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=stderr, start_new_session=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def long_job(tmp_path, mode, *extra):
    """A job of far more events than a test waits for, writing tmp_path/out.root; a marker file appears once it
    has processed event 300 (about 0.3 s of work per lane)."""
    marker = tmp_path / "marker"
    args = ["--source", SOURCE, "-n", 200_000, "-t", 2, "--module", SLOW,
            "--module", f"fault:at=300,action=sleep,seconds=0,once={marker}",
            "--output", f"root:file={tmp_path / 'out.root'}", *MODES[mode], *extra]
    return group_job(tmp_path, *args), marker


def ended(process, tmp_path, seconds=60):
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the job did not end within {seconds} s: {(tmp_path / 'stderr.txt').read_text()}")
    return process.returncode, (tmp_path / "stderr.txt").read_text()


def children(pid):
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purpose: it runs nothing and holds no file.
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("signo", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["INT", "TERM", "HUP"])
def test_a_signal_to_the_group_is_one_graceful_stop(tmp_path, mode, signo):
    job, marker = long_job(tmp_path, mode)
    with job as process:
        wait_for(marker.exists, 120, "event 300")
        os.killpg(process.pid, signo)
        code, stderr = ended(process, tmp_path)
    assert code == 128 + signo, stderr
    assert "aborting" not in stderr and "error" not in stderr, stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["stop_requested"] is True and report["failed"] is False
    assert 300 <= report["events"] < 200_000
    assert event_count(tmp_path / "out.root") == report["events"]  # nothing processed is missing from the output
    left = [p.name for p in tmp_path.iterdir() if ".partial-" in p.name or ".worker-" in p.name]
    assert left == []


@pytest.mark.parametrize("mode", ["single", "processes"])
def test_a_second_ctrl_c_aborts_and_leaves_no_output(tmp_path, mode):
    # A lane that hangs holds the graceful stop back: only the second Ctrl-C ends the job.
    hung = tmp_path / "hung"
    job, marker = long_job(tmp_path, mode, "--module", f"fault:label=hang,at=400,action=hang,once={hung}")
    with job as process:
        wait_for(hung.exists, 120, "the hang")
        os.killpg(process.pid, signal.SIGINT)
        # The job's own message (a parent's comes after its workers'): two signals pending at once would be one.
        said = "the workers finish" if mode == "processes" else "finishing the events"
        wait_for(lambda: said in (tmp_path / "stderr.txt").read_text(), 60, "the first stop's message")
        os.killpg(process.pid, signal.SIGINT)
        code, stderr = ended(process, tmp_path)
    assert code == 128 + signal.SIGINT, stderr
    assert "again: aborting" in stderr
    assert_nothing_under(tmp_path / "out.root")


@pytest.mark.parametrize("mode", ["processes", "no-fork"])
def test_workers_of_a_killed_parent_stop_and_remove_their_parts(tmp_path, mode):
    job, marker = long_job(tmp_path, mode)
    with job as process:
        wait_for(marker.exists, 120, "event 300")
        workers = children(process.pid)
        assert len(workers) == 2
        process.kill()
        process.wait()
        wait_for(lambda: not any(alive(w) for w in workers), 60, "the orphaned workers to end")
    # Only the dead parent's own temporary file may remain (`lanes clean` removes it).
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out."))
    assert left in ([], [f"out.root.partial-{process.pid}"]), left


def test_a_job_names_the_partial_files_of_killed_jobs(tmp_path):
    job, marker = long_job(tmp_path, "processes")
    with job as process:
        wait_for(marker.exists, 120, "event 300")
        workers = children(process.pid)
        os.killpg(process.pid, signal.SIGKILL)
    wait_for(lambda: not any(alive(w) for w in workers), 60, "the killed workers to end")
    stale = sorted(p.name for p in tmp_path.iterdir() if ".partial-" in p.name)
    assert stale, "the killed workers left no partial file to find"
    with group_job(tmp_path, "--source", SOURCE, "-n", 10, "-t", 1, "--output", "root:file=out.root") as process:
        code, stderr = ended(process, tmp_path)
    assert code == 0, stderr
    warnings = [line for line in stderr.splitlines() if line.startswith("lanes: warning: ")]
    assert len(warnings) == len(stale), stderr
    for name in stale:
        assert sum(name in line and "lanes clean" in line for line in warnings) == 1, (name, stderr)
    assert event_count(tmp_path / "out.root") == 10


def test_lanes_clean_removes_only_partials_of_dead_processes(tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = [tmp_path / f"out.root.partial-{dead.pid}", tmp_path / f"out.worker-1.root.partial-{dead.pid}"]
    live = tmp_path / f"out.root.partial-{os.getpid()}"
    keep = [live, tmp_path / "out.root", tmp_path / "notes.partial-x"]
    for path in stale + keep:
        path.write_text("x")
    listed = subprocess.run([str(BINARY), "clean", "--dry-run", str(tmp_path)], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert sorted(listed.stdout.splitlines()) == sorted(f"would remove {p}" for p in stale)
    assert all(p.exists() for p in stale + keep)
    cleaned = subprocess.run([str(BINARY), "clean", str(tmp_path)], capture_output=True, text=True)
    assert cleaned.returncode == 0, cleaned.stderr
    assert sorted(cleaned.stdout.splitlines()) == sorted(f"removed {p}" for p in stale)
    assert not any(p.exists() for p in stale) and all(p.exists() for p in keep)


def test_lanes_clean_of_a_missing_directory_is_a_one_line_error(tmp_path):
    result = subprocess.run([str(BINARY), "clean", str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert_one_line_error(Result(result, tmp_path / "no-report"), "nowhere", "not a directory")
