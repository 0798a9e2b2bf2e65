"""Workers of a multi-process job that crash: --retry-lost gives a crashed worker's events to a new worker, but at
most --retry-limit times for the same events (an event that always crashes its worker fails the job, naming it),
and a failure never suggests an option that the job's mode refuses."""

from collections import Counter
from pathlib import Path

import pytest
import uproot

from faults import assert_nothing_under, assert_one_line_error, event_count, run_limited

DATA = Path(__file__).resolve().parents[2] / "data" / "files"
# Events numbered 1..2421 (the file has no event id branches).
SOURCE = f"root:file={DATA / 'uproot-HZZ-objects.root'},tree=events,branches=num_primaryvertex,branches=eventweight"
EVENTS = 300


def multiprocess(tmp_path, *extra):
    return run_limited("run", "--processes", 2, "-t", 1, "--source", SOURCE, "-n", EVENTS,
                       "--output", "root:file=out.root", *extra, cwd=tmp_path)


def retries(result):
    return result.stderr.count("its events go to a new worker")


@pytest.mark.parametrize("limit", [None, 1, 3])
@pytest.mark.parametrize("distribution", ["queue", "round-robin"])
def test_an_event_that_always_crashes_its_worker_fails_the_job_after_the_retry_limit(tmp_path, distribution, limit):
    extra = ["--retry-lost", "--distribution", distribution, "--module", "fault:at=150,action=abort"]
    extra += [] if limit is None else ["--retry-limit", limit]
    result = multiprocess(tmp_path, *extra)
    limit = 2 if limit is None else limit
    assert result.returncode == 1, result.stderr
    assert retries(result) == limit
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("lanes: error: ") and f"--retry-limit {limit} reached" in error, result.stderr
    assert "killed by signal 6" in error and f"{limit + 1} workers died" in error
    last = [w for w in result.report["workers"] if w.get("signal") == 6][-1]
    assert f"(pid {last['pid']})" in error
    # Event 150 is ordinal 149: the events named hold it.
    assert ("ordinals 140 to 149" if distribution == "queue" else "ordinal 1 + k * 2") in error, error
    assert len(result.report["workers"]) == 2 + limit
    assert_nothing_under(tmp_path / "out.root")


def test_a_transient_crash_is_retried_once_and_every_event_is_written_once(tmp_path):
    once = tmp_path / "crashed-once"
    result = multiprocess(tmp_path, "--retry-lost", "--module", f"fault:at=150,action=abort,once={once}")
    assert result.returncode == 0, result.stderr
    assert once.exists() and retries(result) == 1
    events = Counter(uproot.open(tmp_path / "out.root")["Events"]["event"].array(library="np").tolist())
    assert sorted(events) == list(range(1, EVENTS + 1)) and set(events.values()) == {1}
    assert result.report["events"] == EVENTS


def test_a_crash_in_a_shared_writer_job_suggests_no_retry(tmp_path):
    result = multiprocess(tmp_path, "--output-mode", "shared-writer", "--module", "fault:at=150,action=abort")
    assert result.returncode == 1
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("lanes: error: ") and "killed by signal 6" in error
    assert "--retry-lost" not in result.stderr  # the mode refuses it
    assert_nothing_under(tmp_path / "out.root")


def test_a_crash_in_a_merge_job_suggests_the_retry(tmp_path):
    result = multiprocess(tmp_path, "--module", "fault:at=150,action=abort")
    assert result.returncode == 1
    assert "rerun with --retry-lost" in result.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("args, fragment", [
    (["--retry-limit", 3], "--retry-lost"),
    (["--retry-lost", "--retry-limit", 0], "--retry-limit"),
])
def test_bad_retry_options_are_refused_before_the_job(tmp_path, args, fragment):
    result = multiprocess(tmp_path, *args)
    assert result.returncode == 2
    assert fragment in result.stderr.splitlines()[0]
    assert not (tmp_path / "out.root").exists() and result.report is None


# --watchdog: a module call that makes no progress (a 20 s sleep at event 150) is named; the action decides the rest.
SLEEPY = "fault:label=sleepy,at=150,action=sleep,seconds=20"


@pytest.mark.parametrize("action", ["warn", "stop", "abort"])
@pytest.mark.parametrize("processes", [0, 2])
def test_the_watchdog_names_a_hung_module_call(tmp_path, action, processes):
    # handles=shared: with a handle per lane, the other lane, blocked behind the hung call, is named too (and may be
    # the one a stopped job's error names).
    args = ["run", "-t", 2, "--source", f"{SOURCE},handles=shared", "-n", EVENTS, "--output", "root:file=out.root",
            "--module", SLEEPY, "--watchdog", 1, "--watchdog-action", action]
    args += ["--processes", processes] if processes else []
    result = run_limited(*args, cwd=tmp_path)
    named = [line for line in result.stderr.splitlines() if line.startswith("lanes: watchdog: ")]
    assert len(named) == 1, result.stderr
    assert "module 'sleepy' (fault)" in named[0] and "event 1:1:150" in named[0] and "pid " in named[0]
    if action == "warn":
        assert result.returncode == 0, result.stderr
        report = result.report if not processes else next(
            w["report"] for w in result.report["workers"] if w["report"]["watchdog"]["hangs"])
        assert report["watchdog"]["hangs"][0]["module"] == "sleepy"
        assert event_count(tmp_path / "out.root") == result.report["events"] == EVENTS
    elif action == "stop":
        assert result.returncode == 1
        assert "watchdog: module 'sleepy'" in result.stderr.strip().splitlines()[-1]
    else:
        assert result.returncode == 1
        assert_nothing_under(tmp_path / "out.root")


def test_a_watchdog_action_without_a_watchdog_is_refused(tmp_path):
    result = run_limited("run", "--source", SOURCE, "-n", 5, "--watchdog-action", "stop", cwd=tmp_path)
    assert result.returncode == 2 and "--watchdog-action needs a watchdog" in result.stderr


@pytest.mark.parametrize("mode", [[], ["--no-fork"]], ids=["fork", "no-fork"])
def test_bad_input_found_as_the_modules_begin_exits_2_as_in_one_process(tmp_path, mode):
    # The empty source numbers events by ordinal: an at= past -n can never fire (see test_options).
    result = run_limited("run", "--processes", 2, "-n", 20, "--source", "empty", "--module", "fault:at=21",
                         "--output", "root:file=out.root", *mode, cwd=tmp_path)
    assert_one_line_error(result, "module 'fault'", "beginJob", "no event is numbered 21", code=2)
    assert result.report is None
    assert_nothing_under(tmp_path / "out.root")
