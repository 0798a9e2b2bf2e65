"""--monitor-sample N: one event in N of each lane timed exactly, every call counted, the report's times scaled
from the timed calls and said to be estimates. Asserted on the JSON report; times only as relations between runs."""

import math

import pytest

from test_bad_input import assert_one_line_error

EVENTS = 3000


def test_the_report_says_the_timing_is_sampled_and_by_how_much(lanes):
    exact = lanes("run", "--source", "empty", "--output", "dummy", "-t", "1", "-n", 200)
    assert exact.returncode == 0, exact.stderr
    assert exact.report["monitor"]["timing_sample"] == 1
    assert "timing sampled" not in exact.stdout
    sampled = lanes("run", "--source", "empty", "--output", "dummy", "-t", "1", "-n", 200, "--monitor-sample", 16)
    assert sampled.returncode == 0, sampled.stderr
    assert sampled.report["monitor"]["timing_sample"] == 16
    assert "timing sampled: one event in 16 per lane timed" in sampled.stdout
    assert "times estimated" in sampled.stdout


def test_a_multi_process_report_says_the_timing_is_sampled(lanes):
    result = lanes("run", "--source", "empty", "--output", "dummy", "-t", "1", "-n", 400, "--processes", 2,
                   "--monitor-sample", 8)
    assert result.returncode == 0, result.stderr
    assert result.report["monitor"]["timing_sample"] == 8
    assert all(w["report"]["monitor"]["timing_sample"] == 8 for w in result.report["workers"])
    assert "timing sampled: one event in 8 per lane timed" in result.stdout


@pytest.mark.parametrize("sample", [2, 7, 100])
def test_every_call_is_counted_and_one_event_in_n_timed(lanes, sample):
    result = lanes("run", "--source", "empty", "--module", "analyzer", "--output", "dummy",
                   "-t", "1", "-l", "1", "-n", EVENTS, "--monitor-sample", sample)
    assert result.returncode == 0, result.stderr
    report = result.report
    assert report["events"] == EVENTS
    for module in report["modules"]:
        assert module["calls"] == EVENTS, module
    timed = math.ceil(EVENTS / sample)  # one lane: its 1st, (N+1)th, ... event
    monitor = report["monitor"]
    assert monitor["timed_calls"] == 3 * timed  # the source's next(), the analyzer's and the output's calls
    assert monitor["timed_events"] == timed
    assert report["event_times"]["events"] == timed


@pytest.mark.parametrize("threads,lanes_", [(1, 1), (2, 4)])
def test_estimated_times_agree_with_an_exact_run(lanes, threads, lanes_):
    # Busy waiters: the same CPU work in every event (2:1 between the two products), so the timed quarter stands
    # for the rest. Compared as shares of each run's own thread time, which a loaded machine stretches in both
    # alike (a preempted timed call counts 4 times: hence the margin): a sum left unscaled would be a quarter of
    # the exact share, one scaled twice 4 times it.
    def run(*extra):
        result = lanes("run", "--source", "synthetic:size.a=10000,size.b=5000", "--waiter", "busy:scale=1e-8",
                       "--output", "dummy", "-t", threads, "-l", lanes_, "-n", 2000, *extra)
        assert result.returncode == 0, result.stderr
        report = result.report
        waiters = {m["label"]: m for m in report["modules"] if m["kind"] != "output"}
        assert set(waiters) == {"busy/a", "busy/b"}, waiters
        assert all(m["calls"] == 2000 for m in report["modules"]), report["modules"]
        modules = report["thread_time"]["modules_s"]
        return modules / report["thread_time"]["total_s"], waiters["busy/a"]["total_s"] / modules

    (exact_share, exact_a), (sampled_share, sampled_a) = run(), run("--monitor-sample", 4)
    assert 0.5 < sampled_share / exact_share < 2, (exact_share, sampled_share)
    assert abs(sampled_a - exact_a) < 0.2, (exact_a, sampled_a)


@pytest.mark.parametrize("value", ["0", "-3", "x", "1.5"])
def test_a_bad_sample_is_refused_in_one_line(lanes, value):
    result = lanes("run", "--source", "empty", "--output", "dummy", "-n", 5, "--monitor-sample", value, report=False)
    assert_one_line_error(result, "--monitor-sample")
