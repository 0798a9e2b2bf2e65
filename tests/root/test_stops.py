"""Jobs stopped from outside. Outputs write PATH.partial-<pid> and rename it to PATH only when the file is
complete: a killed job leaves no PATH; an interrupted one finishes its events in flight and commits a valid file."""

import signal

import pytest

from rootio import (NANO, assert_distinct_ids, background_lanes, output_details, output_spec, poll_until,
                    read_events, result_of, wait_for_partial)


def start_endless_job(tmp_path, kind):
    """An endless job (the NanoAOD events cycled) writing tmp_path/out.root with an output of `kind`: returns the
    job (a context yielding the Popen) and the output path."""
    out = tmp_path / "out.root"
    job = background_lanes("--source", NANO.spec(repeat=200), "-n", "0", "--endless", "-t", "2", "--output", output_spec(kind, out),
                           cwd=tmp_path)
    return job, out


def test_sigkill_leaves_no_output(tmp_path):
    job, out = start_endless_job(tmp_path, "root")
    with job as process:
        partial = wait_for_partial(process, out)
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL
    assert partial.exists()  # what was being written stays where it was, under its partial name
    assert not out.exists()


@pytest.mark.parametrize("kind", ["root", "parallel-root", "rntuple"])
def test_sigint_commits_a_valid_file(tmp_path, kind):
    job, out = start_endless_job(tmp_path, kind)
    with job as process:
        partial = wait_for_partial(process, out)
        # Stop it while it writes: a tree's file grows as baskets fill (to 1 MB within about a second, longer on a
        # loaded machine); an RNTuple is written at the end, so for it this waits 5 s, time for its first events.
        poll_until(lambda: not partial.exists() or partial.stat().st_size > 1_000_000, 5 if kind == "rntuple" else 30)
        process.send_signal(signal.SIGINT)
        result = result_of(process, tmp_path, 20, "after SIGINT (the signal was lost?)")
    assert result.returncode == 128 + signal.SIGINT, result.stderr
    assert "finishing the events in flight" in result.stderr
    assert result.report["stop_requested"] is True and result.report["failed"] is False
    details = output_details(result.report, kind)
    assert details["committed"] is True
    assert out.exists() and not partial.exists()
    written = read_events(out, ids_only=True)
    assert len(written) == details["events_written"] == result.report["events"]
    assert len(written) > 0
    assert_distinct_ids(written)
