"""Signals to a job and to its whole process group (a terminal's Ctrl-C, a batch system's SIGTERM, a closed
session's SIGHUP), a second Ctrl-C, a parent killed under its workers, and the partial files killed jobs leave
(named by the next job, removed by `lanes clean --yes`).

Every job runs as the leader of its own process group, as a shell starts it, so that a signal to the group
reaches the parent and every worker at once. No sleeps: the jobs are signalled once a `fault` module's marker file
shows that events have been processed, and every wait polls with a generous timeout.
"""

import json
import os
import signal
import subprocess
from contextlib import contextmanager, suppress
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
    # A lane that hangs holds the graceful stop back: only the second Ctrl-C ends the job, naming what still ran
    # (with a watchdog on, which tracks the module calls: in one process the call, in several the workers).
    hung = tmp_path / "hung"
    job, marker = long_job(tmp_path, mode, "--module", f"fault:label=hang,at=400,action=hang,once={hung}",
                           "--watchdog", 600)
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
    running = [line for line in stderr.splitlines() if line.startswith("lanes: still running: ")]
    if mode == "single":
        assert any(line.startswith("lanes: still running: module 'hang' (fault) on lane ") and
                   ", event 1:1:400, pid " in line for line in running), stderr
    else:
        assert running and all(line.startswith("lanes: still running: worker-") and " events" in line
                               for line in running), stderr
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
    # Only the dead parent's own claim on out.root and its temporary file may remain: `lanes clean` removes both.
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out."))
    assert left in (["out.root.lanes-claim"], ["out.root.lanes-claim", f"out.root.partial-{process.pid}"]), left
    cleaned = subprocess.run([str(BINARY), "clean", str(tmp_path), "--yes"], capture_output=True, text=True)
    assert cleaned.returncode == 0, cleaned.stderr
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("out.")]


@pytest.mark.parametrize("action, mode", [("warn", "processes"), ("stop", "processes"), ("abort", "processes"),
                                          ("stop", "no-fork")])
def test_the_watchdog_names_a_stopped_worker(tmp_path, action, mode):
    # A worker stopped by SIGSTOP cannot name itself (its own watchdog stops with it): its parent notices that its
    # heartbeat stopped. warn: the job goes on once the worker is continued; stop and abort end the job.
    job, marker = long_job(tmp_path, mode, "--watchdog", 1, "--watchdog-action", action)
    stderr_file = tmp_path / "stderr.txt"
    with job as process:
        wait_for(marker.exists, 120, "event 300")
        victim = children(process.pid)[1]
        try:
            os.kill(victim, signal.SIGSTOP)
            if action == "warn":
                wait_for(lambda: "heartbeat stopped" in stderr_file.read_text(), 120, "the watchdog's line")
                os.kill(victim, signal.SIGCONT)
                os.killpg(process.pid, signal.SIGTERM)
            code, stderr = ended(process, tmp_path)
        finally:
            if alive(victim):
                os.kill(victim, signal.SIGCONT)
    named = [line for line in stderr.splitlines() if line.startswith("lanes: watchdog: ") and "heartbeat" in line]
    assert len(named) == 1, stderr
    report = json.loads((tmp_path / "report.json").read_text())
    worker = next(w for w in report["workers"] if w["pid"] == victim)
    assert named[0].startswith(f"lanes: watchdog: worker-{worker['index']} (pid {victim}, part {worker['part']}), "
                               "stopped, has made no progress for "), named[0]
    assert [(h["pid"], h["part"], h["state"]) for h in report["watchdog"]["hangs"]] == [(victim, worker["part"], "stopped")]
    assert report["watchdog"]["action"] == action and report["watchdog"]["seconds"] == 1
    if action == "warn":
        assert code == 128 + signal.SIGTERM, stderr
        assert report["failed"] is False and report["stop_requested"] is True
        assert event_count(tmp_path / "out.root") == report["events"] > 0
    else:
        assert code == 1, stderr
        error = stderr.strip().splitlines()[-1]
        assert error.startswith(f"lanes: error: watchdog: worker-{worker['index']} (pid {victim}, "), error
        assert "made no progress for 1 s; the job was stopped" in error
        assert report["failed"] is True and worker["status"] == "died" and worker["signal"] == signal.SIGKILL
        assert_nothing_under(tmp_path / "out.root")
    assert not [p.name for p in tmp_path.iterdir() if ".worker-" in p.name or ".partial-" in p.name]


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


@contextmanager
def finished_parts(tmp_path):
    """A --processes 2 job writing tmp_path/out.root whose parent is stopped (SIGSTOP) while its workers run: they
    finish and commit their parts, which it never merges. Yields the job's Popen, its workers' pids and their parts
    (out.worker-N-of-PARENT.root) once both exist; the whole group is killed at the end."""
    marker = tmp_path / "marker"
    # Round-robin: both workers have events. The lane that processes event 300 sleeps for 5 s after the marker
    # appears, which keeps its worker (and so the parent, which merges only once every worker is done) busy.
    job = group_job(tmp_path, "--source", SOURCE, "-n", 2000, "-t", 2, "--module", SLOW,
                    "--module", f"fault:at=300,action=sleep,seconds=5,once={marker}",
                    "--output", "root:file=out.root", "--processes", 2, "--distribution", "round-robin")
    with job as process:
        wait_for(marker.exists, 120, "event 300")
        os.kill(process.pid, signal.SIGSTOP)
        try:
            workers = children(process.pid)
            assert len(workers) == 2 and not (tmp_path / "out.root").exists()
            parts = [tmp_path / f"out.worker-{n}-of-{process.pid}.root" for n in range(2)]
            wait_for(lambda: all(p.exists() for p in parts), 120, "both finished parts")
            yield process, workers, parts
        finally:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


def test_a_killed_jobs_finished_parts_are_named_and_cleaned(tmp_path):
    # SIGKILL to the whole group (what a batch system's hard kill does) once the workers finished their parts,
    # before the parent merged them: nobody is left to remove them, and their names say whose they were.
    with finished_parts(tmp_path) as (process, workers, parts):
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        wait_for(lambda: not any(alive(w) for w in workers), 60, "the killed workers to end")
    claim = tmp_path / "out.root.lanes-claim"
    left = sorted(p for p in tmp_path.iterdir() if p.name.startswith("out."))
    assert left == [claim] + parts, left
    listed = subprocess.run([str(BINARY), "clean", str(tmp_path)], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    # The killed job's claims name it: on out.root with the parts it left, and on its report, with nothing left.
    assert [line.split(" (")[0] for line in listed.stdout.splitlines()[:-1]] == [
        f"would remove {p}" for p in parts + [claim, tmp_path / "report.json.lanes-claim"]]
    # A new job writing the same file names them (in one process, and in several).
    for mode in ([], ["--processes", 2]):
        with group_job(tmp_path, "--source", SOURCE, "-n", 10, "-t", 1, "--output", "root:file=out.root",
                       *mode) as job:
            code, stderr = ended(job, tmp_path)
        assert code == 0, stderr
        warnings = [line for line in stderr.splitlines() if line.startswith("lanes: warning: ")]
        assert len(warnings) == 2, stderr
        for part, warning in zip(parts, sorted(warnings)):
            assert f"'{part.name}' is left from a job that was killed (process {process.pid} is gone)" in warning
            assert "`lanes clean . --yes` removes it" in warning
        assert event_count(tmp_path / "out.root") == 10
    cleaned = subprocess.run([str(BINARY), "clean", str(tmp_path), "--yes"], capture_output=True, text=True)
    assert cleaned.returncode == 0, cleaned.stderr
    assert [line.split(" (")[0] for line in cleaned.stdout.splitlines()] == [f"removed {p}" for p in parts + [claim]]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out.")) == ["out.root"]


def test_workers_whose_parent_dies_before_the_merge_remove_their_finished_parts(tmp_path):
    with finished_parts(tmp_path) as (process, workers, parts):
        process.kill()  # the parent alone; its workers wait for it to merge their parts
        process.wait()
        wait_for(lambda: not any(alive(w) for w in workers), 60, "the orphaned workers to end")
    # Only the killed parent's claim on out.root is left, which names no file left now: `lanes clean` removes it.
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out."))
    assert left == ["out.root.lanes-claim"], (left, (tmp_path / "stderr.txt").read_text())
    cleaned = subprocess.run([str(BINARY), "clean", str(tmp_path), "--yes"], capture_output=True, text=True)
    assert cleaned.returncode == 0, cleaned.stderr
    assert cleaned.stdout.splitlines()[0].startswith(f"removed {tmp_path / 'out.root.lanes-claim'} ("), cleaned.stdout
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("out.")]


def test_lanes_clean_of_a_missing_directory_is_a_one_line_error(tmp_path):
    result = subprocess.run([str(BINARY), "clean", str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert_one_line_error(Result(result, tmp_path / "no-report"), "nowhere", "not a directory")
