"""Shared by the fault-injection catalogue (tests/faults): hostile inputs, full disks, signals, killed workers.

Every case asserts the exit status, a one-line `lanes: error: ...` message where the job fails, and, where an
output exists, that an independent reader (uproot) finds exactly the events the report counts. The helpers for
reading events and waiting on background jobs come from tests/root/rootio.py.
"""

import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import uproot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "root"))

from conftest import BINARY, Result  # noqa: E402
from rootio import (  # noqa: E402,F401  (re-exported for the catalogue)
    DATA, MUONS, NANO, assert_clean_failure, background_lanes, poll_until, read_events, result_of, wait_for)

NANO_FILE = DATA / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
MUONS_FILE = DATA / "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root"


def run_limited(*args, cwd, file_size_limit=None, timeout=120, report=True):
    """Runs `lanes ARGS` in `cwd` like the `lanes` fixture, optionally with RLIMIT_FSIZE set to `file_size_limit`
    bytes and SIGXFSZ ignored, so that a write past the limit fails with EFBIG (a full disk without root). A job
    that a signal ends leaves no core file (RLIMIT_CORE 0)."""
    args = [str(a) for a in args]
    report_path = Path(cwd) / "report.json"
    report_path.unlink(missing_ok=True)
    if report and args and args[0] == "run":
        args += ["--report", str(report_path)]

    def limit():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if file_size_limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    completed = subprocess.run([str(BINARY), *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                               stdin=subprocess.DEVNULL, preexec_fn=limit)
    return Result(completed, report_path)


def assert_one_line_error(result, *fragments, code=2):
    """Exit status `code`, exactly one stderr line starting `lanes: error: ` and holding every fragment."""
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lanes: error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def assert_nothing_under(path):
    """Neither `path` nor any partial file of it (PATH.partial-PID, PATH.tmp, worker and prefork parts) exists."""
    path = Path(path)
    left = sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)
                  or p.name.startswith(path.stem + ".worker-") or p.name.startswith(path.stem + ".prefork-"))
    assert left == [], left


def written_temporary(path, larger_than=0):
    """PATH.partial-PID once an output has written more than `larger_than` bytes into it (ROOT writes its file
    header as it opens it), else None. An output's check that it can write the directory creates and removes an
    empty PATH.partial-PID of its own first: a file that merely exists says nothing."""
    path = Path(path)
    for partial in path.parent.glob(path.name + ".partial-*"):
        try:
            if partial.stat().st_size > larger_than:
                return partial
        except FileNotFoundError:
            pass
    return None


def size_text(size):
    """A file's size as lanes prints it (in `lanes clean`'s list and an output's summary line): "812 bytes",
    "3.4 kB", "1.2 MB" (powers of 1000, one decimal)."""
    if size < 1000:
        return f"{size} bytes"
    value, units = size / 1000, ["kB", "MB", "GB", "TB"]
    while value >= 999.95 and len(units) > 1:
        value, units = value / 1000, units[1:]
    return f"{value:.1f} {units[0]}"


def event_count(path, name="Events"):
    """Entries of the TTree or RNTuple `name` in `path`, read by uproot."""
    return len(read_events(path, name, ids_only=True))


def interrupted_job(directory, output_spec, at=200):
    """A job of test-products into `output_spec`, with events in flight (a sleeping analyzer), stopped by Ctrl-C
    once event `at` passed: asserts it ended with 130 having processed at least `at` events; returns how many."""
    marker = Path(directory) / "marker"
    args = ["-n", 0, "--endless", "-t", 2, "--source", "test-products", "--module", "analyzer:time=0.001,work=sleep",
            "--module", f"fault:at={at},action=sleep,seconds=0,once={marker}", "--output", output_spec]
    with background_lanes(*args, cwd=directory) as process:
        wait_for(marker.exists, 60, f"event {at}")
        process.send_signal(signal.SIGINT)
        result = result_of(process, directory, 60, "the stopped job")
    assert result.returncode == 130, result.stderr
    assert result.report["events"] >= at
    return result.report["events"]


def nano_events_written(path, events, *options):
    """The first `events` events of the NanoAOD file, as a TTree that lanes writes to `path` with `options`."""
    result = run_limited("run", "-t", 1, "-n", events, "--source", f"root:file={NANO_FILE}", "--output",
                         ",".join([f"root:file={path}", *options]), cwd=Path(path).parent)
    assert result.returncode == 0, result.stderr
    return path


def invert(data, at, count):
    data[at:at + count] = bytes(b ^ 0xFF for b in data[at:at + count])


def damaged_copy(source, path, change):
    """A copy of `source` at `path`, its bytes changed in place by `change(bytearray)`."""
    data = bytearray(Path(source).read_bytes())
    change(data)
    Path(path).write_bytes(bytes(data))
    return path


# Where 8 inverted bytes in the streamer information record of an uncompressed TTree that lanes wrote (the first 50
# NanoAOD events, level=0) made ROOT 6.40 die of SIGSEGV, as it opened the file or read the tree's metadata: no
# checksum covers that record, and ROOT trusts the class descriptions it reads there.
STREAMER_INFO_CRASHES = (233, 925, 2482, 3347, 3520, 3866, 4039, 4212, 4904)
SIGNALS = {-11: "signal 11 (Segmentation fault)", -7: "signal 7 (Bus error)", -6: "signal 6 (Aborted)"}


def without_stack_traces(stderr):
    """stderr's lines but the stack traces that crashes give after their line (a heading `lanes: stack trace of
    thread ...`, then a line a frame, `  #N ...`): a worker's comes before its parent's line."""
    lines = stderr.strip().splitlines()
    return [line for line in lines if not re.match(r"lanes: (.*: )?stack trace of thread \d+|  #\d+ ", line)]


def assert_said_before_the_signal(result, path, prefix=""):
    """Killed by a signal, having said first, in one line (after `prefix`), what ran on the thread, what it read and
    that the file is probably damaged."""
    assert result.returncode in SIGNALS, (result.returncode, result.stderr)
    lines = without_stack_traces(result.stderr)
    assert [line for line in lines if line.startswith("lanes: ")] == lines[:1], result.stderr
    assert re.match(rf"lanes: error: {re.escape(prefix + SIGNALS[result.returncode])} (in .* )?on thread \d+ while ",
                    lines[0]), lines[0]
    assert lines[0].endswith(f"'{path}': the file is probably damaged"), lines[0]


def streamer_information_that_crashes_root(raw, directory):
    """A copy of `raw` (see STREAMER_INFO_CRASHES) whose damaged streamer information makes ROOT die of a signal:
    the first of the offsets that still does, checked to say what it read first."""
    with uproot.open(raw) as file:
        seek = file.file.fSeekInfo
    for offset in STREAMER_INFO_CRASHES:
        path = damaged_copy(raw, Path(directory) / f"crashing-{offset}.root", lambda data: invert(data, seek + offset, 8))
        result = run_limited("run", "-t", 1, "-n", 0, "--source", f"root:file={path}", "--output", "dummy",
                             cwd=directory)
        if result.returncode in SIGNALS:
            assert_said_before_the_signal(result, path)
            return path
    raise AssertionError(f"none of the offsets {STREAMER_INFO_CRASHES} makes ROOT die of a signal any more")
