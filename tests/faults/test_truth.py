"""Small cases of a second hostile pass. An input that is not a regular file (a FIFO, a shell's <(...)) is refused in
one line instead of hanging the job; every output's summary line and report entry tell what is on disk (path,
events, bytes, committed); options that could never take effect are refused before the first event (a waiter with
nothing to wait on, a fault at= that no event carries), or, where that cannot be known before, the job fails
naming the fault that never fired."""

import os
import subprocess

import pytest

from faults import BINARY, NANO_FILE, assert_one_line_error, event_count, run_limited, size_text

EVENTS = 12


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "in.fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("args, use", [
    (["--source", "root:file={}"], "the source (file={})"),
    (["--source", "hdf5:files={}"], "the source (files={})"),
    (["--source", "pds:file={}"], "the source (file={})"),
    (["--source", "synthetic:profile={}"], "the source (profile={})"),
    (["--menu", "{}"], "the menu (--menu {})"),
])
def test_a_fifo_named_as_an_input_is_refused(tmp_path, fifo, args, use):
    result = run_limited("run", "-n", 5, *[a.format(fifo) for a in args], cwd=tmp_path, report=False, timeout=60)
    assert_one_line_error(result, use.format(fifo), f"'{fifo}' is a FIFO (a pipe), not a regular file")


def test_a_fifo_in_a_file_list_is_refused(tmp_path, fifo):
    listing = tmp_path / "list.txt"
    listing.write_text(f"{NANO_FILE}\n{fifo}\n")
    result = run_limited("run", "-n", 5, "--source", f"root:files={listing}", cwd=tmp_path, report=False, timeout=60)
    assert_one_line_error(result, f"the source (files={listing}), listed '{fifo}'", "is a FIFO")


def test_a_shells_process_substitution_is_refused(tmp_path):
    read, write = os.pipe()
    try:
        result = subprocess.run([str(BINARY), "run", "-n", "5", "--source", f"root:file=/dev/fd/{read}"],
                                pass_fds=[read], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    finally:
        os.close(read)
        os.close(write)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"lanes: error: the source (file=/dev/fd/{read}): '/dev/fd/{read}' is a FIFO")


def test_lanes_inspect_refuses_a_fifo(tmp_path, fifo):
    result = run_limited("inspect", fifo, cwd=tmp_path, timeout=60)
    assert_one_line_error(result, "the file to inspect", "is a FIFO")


# Each output that writes a file, and how many events an independent reader finds in it (None: lanes reads it).
OUTPUTS = {
    "root": lambda path: event_count(path),
    "parallel-root": lambda path: event_count(path),
    "rntuple": lambda path: event_count(path),
    "rntuple-parallel": lambda path: event_count(path),
    "root-events": None,  # batches of events, one an entry
    "pds": None,
    "hdf5": None,
    "textdump": lambda path: sum(line.startswith("event ") for line in path.read_text().splitlines()),
}
READERS = {"root-events": "root-events", "pds": "pds", "hdf5": "hdf5"}


@pytest.mark.parametrize("processes", [[], ["--processes", 2]], ids=["single", "processes"])
@pytest.mark.parametrize("kind", OUTPUTS)
def test_each_outputs_summary_line_and_entry_tell_what_is_on_disk(tmp_path, kind, processes):
    path = tmp_path / f"one.{kind}"
    result = run_limited("run", "--source", "test-products", "-n", EVENTS, "-t", 2, *processes,
                         "--output", f"{kind}:file={path.name}", cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    if processes:
        entry = next(o for o in result.report["outputs"] if o["label"] == kind)
    else:
        entry = next(m["details"] for m in result.report["modules"] if m["label"] == kind)
    size = path.stat().st_size
    assert (entry["file"], entry["committed"], entry["bytes"], entry["events_written"]) == (path.name, True, size, EVENTS)
    assert "replaced" not in entry
    count = OUTPUTS[kind]
    if count is None:
        read = run_limited("run", "--source", f"{READERS[kind]}:file={path.name}", "-n", 0, "--output", "dummy",
                           cwd=tmp_path)
        assert read.returncode == 0, read.stderr
        assert read.report["events"] == EVENTS
    else:
        assert count(path) == EVENTS
    lines = [line.strip() for line in result.stdout.splitlines() if f"events written to {path.name}" in line]
    how = ", merged from the workers' parts" if processes else ""
    prefix = "" if processes else f"{kind}: "
    assert lines == [f"{prefix}{EVENTS} events written to {path.name} ({size_text(size)}{how})"], result.stdout


def test_textdump_to_stdout_claims_no_file(tmp_path):
    result = run_limited("run", "--source", "test-products", "-n", 3, "--output", "textdump", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert next(m["details"] for m in result.report["modules"] if m["label"] == "textdump") == {"events_written": 3}
    assert "events written to" not in result.stdout and "nothing written" not in result.stdout


@pytest.mark.parametrize("waiter, fragments", [
    ("busy:scale=nan", ["option 'scale' must be a finite number >= 0, got nan"]),
    ("busy:scale=-1", ["option 'scale' must be a finite number >= 0, got -1"]),
    ("sleep:scalee=1", ["scalee"]),
    ("busy", ["waiter 'busy' has nothing to wait on: the source 'empty' has no products (leave the waiter out)"]),
])
def test_a_waiter_with_nothing_to_wait_on_is_refused(tmp_path, waiter, fragments):
    result = run_limited("run", "-n", 5, "--source", "empty", "--waiter", waiter, cwd=tmp_path, report=False)
    assert_one_line_error(result, *fragments)


@pytest.mark.parametrize("source", [f"root:file={NANO_FILE}", f"root:file={NANO_FILE},repeat=10"])
def test_a_fault_at_that_no_event_of_a_file_carries_is_refused(tmp_path, source):
    result = run_limited("run", "-n", 0 if "repeat" not in source else 20, "--source", source,
                         "--module", "fault:at=5", "--output", "dummy", cwd=tmp_path)
    assert_one_line_error(result, "module 'fault'", "no event of this job is numbered 5", "not an ordinal")
    assert result.report is None


def test_a_fault_that_never_fired_fails_the_job(tmp_path):
    # root-events files are read by one shared reader, which cannot look ahead: the job learns only at its end.
    written = run_limited("run", "--source", "test-products", "-n", 10, "--output", "root-events:file=ev.root",
                          cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    result = run_limited("run", "-n", 0, "--source", "root-events:file=ev.root", "--module", "fault:at=50",
                         "--output", "dummy", cwd=tmp_path)
    assert_one_line_error(result, "module 'fault'", "the job ended without an event numbered 50",
                          "the fault never fired", code=1)
    assert result.report["failed"] is True and result.report["events"] == 10


def test_a_fault_whose_event_came_but_did_not_strike_again_passes(tmp_path):
    (tmp_path / "struck").touch()  # once= says it struck before: the event came, so the fault did its part
    result = run_limited("run", "-n", 0, "--source", "empty:events=8",
                         "--module", f"fault:at=5,once={tmp_path / 'struck'}", "--output", "dummy", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
