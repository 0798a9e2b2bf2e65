"""The monitor's own cost in the report: the records it timed and the estimate made from them, asserted as
relations on the JSON (never as times) and named in the text summary."""

import pytest

EVENTS = 3000


@pytest.mark.parametrize("threads,lanes_", [(1, 1), (2, 8)])
def test_report_estimates_what_timing_the_job_cost(lanes, threads, lanes_):
    result = lanes("run", "--source", "empty", "--module", "analyzer", "--output", "dummy",
                   "-t", threads, "-l", lanes_, "-n", EVENTS)
    assert result.returncode == 0, result.stderr
    report = result.report
    monitor = report["monitor"]
    # Per event: the source's next(), the analyzer's and the output's calls; its end.
    assert monitor["timed_calls"] == 3 * EVENTS
    # The Idle wait before a lane's first event, and each lane's last, as it finds no more (and a Boundary wait for
    # a lane that found the job's one lumi still beginning); a lane that goes straight on to its next event has no
    # Idle wait, so there are far fewer waits than events.
    if lanes_ == 1:
        assert monitor["timed_waits"] == 2
    assert lanes_ < monitor["timed_waits"] < EVENTS
    assert monitor["timed_events"] == report["events"] == EVENTS
    assert monitor["ns_per_call"] > 0 and monitor["ns_per_wait"] > 0
    assert monitor["estimated_s"] == pytest.approx(
        1e-9 * (monitor["timed_calls"] * monitor["ns_per_call"]
                + (monitor["timed_waits"] + monitor["timed_events"]) * monitor["ns_per_wait"]))
    assert monitor["thread_time_share"] == pytest.approx(monitor["estimated_s"] / report["thread_time"]["total_s"])
    assert "monitor ~" in result.stdout and "of thread time, estimated" in result.stdout


def test_a_failed_event_is_timed_too(lanes):
    result = lanes("run", "--source", "empty", "--module", "fault:at=5", "--output", "dummy",
                   "--on-error", "skip", "-t", "1", "-n", "20")
    assert result.returncode == 0, result.stderr
    report = result.report
    assert report["events"] + report["events_skipped"] == 20
    assert report["monitor"]["timed_events"] == 20
