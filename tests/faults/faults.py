"""Shared by the fault-injection catalogue (tests/faults): hostile inputs, full disks, signals, killed workers.

Every case asserts the exit status, a one-line `lanes: error: ...` message where the job fails, and, where an
output exists, that an independent reader (uproot) finds exactly the events the report counts. The helpers for
reading events and waiting on background jobs come from tests/root/rootio.py.
"""

import resource
import signal
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "root"))

from conftest import BINARY, Result  # noqa: E402
from rootio import (  # noqa: E402,F401  (re-exported for the catalogue)
    DATA, MUONS, NANO, assert_clean_failure, background_lanes, poll_until, read_events, result_of, wait_for)

NANO_FILE = DATA / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
MUONS_FILE = DATA / "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root"


def run_limited(*args, cwd, file_size_limit=None, timeout=120, report=True):
    """Runs `lanes ARGS` in `cwd` like the `lanes` fixture, optionally with RLIMIT_FSIZE set to `file_size_limit`
    bytes and SIGXFSZ ignored, so that a write past the limit fails with EFBIG (a full disk without root)."""
    args = [str(a) for a in args]
    report_path = Path(cwd) / "report.json"
    report_path.unlink(missing_ok=True)
    if report and args and args[0] == "run":
        args += ["--report", str(report_path)]

    def limit():
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
