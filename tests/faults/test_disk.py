"""Full disks and vanishing directories: every output, the report and the trace check every write.

A file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes writes fail with EFBIG ("File too large") as a full disk
would with ENOSPC, without root. A failed output leaves nothing under its name (nor a temporary, nor a worker's
part), the job exits 1 with one line naming the file and the cause, and the report marks the output failed.
"""

import functools
import shutil

import pytest

from faults import (NANO_FILE, assert_nothing_under, assert_one_line_error, background_lanes, event_count,
                    result_of, run_limited, wait_for, written_temporary)

KINDS = ["root", "parallel-root", "rntuple", "rntuple-parallel"]
EVENTS = 600
# Small uncompressed clusters: the RNTuple outputs write while the job runs, not only when it ends.
OPTIONS = {"root": "", "parallel-root": ",flush=100", "rntuple": ",level=0,cluster=500000",
           "rntuple-parallel": ",level=0,cluster=500000"}
MERGE = ["--processes", 2, "--distribution", "round-robin"]  # the shared event queue's memory would count too
TOO_LARGE = "File too large"


def just_below(size):
    """A limit that only the last writes cross: a parallel output's size varies from run to run (by more than
    3% for parallel-root, whose buffers merge in whatever order their events came)."""
    return size - size // 8


def job(kind, path, *extra, events=EVENTS):
    return ["run", "-n", events, "-t", 2, "--source", f"root:file={NANO_FILE},repeat=5",
            "--output", f"{kind}:file={path}{OPTIONS[kind]}", *extra]


@functools.lru_cache(maxsize=None)
def full_size(kind, processes, tmp_root):
    """The size of the output (merged, with `processes`) written without a limit."""
    directory = tmp_root / f"size-{kind}-{processes}"
    directory.mkdir()
    result = run_limited(*job(kind, "out.root", *(MERGE if processes else [])), cwd=directory)
    assert result.returncode == 0, result.stderr
    return (directory / "out.root").stat().st_size


@pytest.fixture(scope="module")
def tmp_root(tmp_path_factory):
    return tmp_path_factory.mktemp("sizes")


def output_of(report):
    return report["modules"][-1]["details"]


def assert_output_failed(result, directory, cause=TOO_LARGE):
    assert_one_line_error(result, "'out.root'", cause, code=1)
    assert_nothing_under(directory / "out.root")
    assert result.report["failed"] is True
    details = output_of(result.report)
    assert details["failed"] is True and details["error"] == cause, details
    assert details["committed"] is False and details["events_written"] == 0, details


@pytest.mark.parametrize("kind", KINDS)
def test_a_job_that_cannot_write_at_all_is_refused_at_its_claim(tmp_path, kind):
    # Not a byte can be written: the claim on out.root, the first file the job writes, fails before any event,
    # and the claim file it could not fill is not left behind.
    result = run_limited(*job(kind, "out.root"), cwd=tmp_path, file_size_limit=0)
    assert_one_line_error(result, "cannot claim output", "'out.root.lanes-claim'", TOO_LARGE, code=2)
    assert_nothing_under(tmp_path / "out.root")
    assert_nothing_under(tmp_path / "report.json")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("when", ["mid-run", "at close"])
def test_an_output_that_fills_the_disk_fails_with_nothing_left(tmp_path, tmp_root, kind, when):
    size = full_size(kind, 0, tmp_root)
    limit = size // 2 if when == "mid-run" else just_below(size)
    result = run_limited(*job(kind, "out.root"), cwd=tmp_path, file_size_limit=limit)
    assert_output_failed(result, tmp_path)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("when", ["in a worker", "in the merge"])
def test_a_multi_process_job_that_fills_the_disk_leaves_no_part(tmp_path, tmp_root, kind, when):
    size = full_size(kind, 2, tmp_root)
    limit = size // 4 if when == "in a worker" else just_below(size)  # the merged file is larger than each part
    result = run_limited(*job(kind, "out.root", *MERGE), cwd=tmp_path, file_size_limit=limit)
    assert_one_line_error(result, "out.", TOO_LARGE, code=1)
    assert_nothing_under(tmp_path / "out.root")
    assert result.report["failed"] is True and TOO_LARGE in result.report["error"]
    assert "2 processes" in result.stdout and "worker-1" in result.stdout, "the summary is printed"
    if when == "in the merge":
        assert "'out.root'" in result.stderr
        [output] = result.report["outputs"]
        assert output["failed"] is True and output["error"] == TOO_LARGE, output


def slow_job(kind, path, *extra):
    """A job that takes seconds (a sleeping analyzer), long enough to pull its directory away while it runs."""
    return job(kind, path, "--module", "analyzer:time=0.005,work=sleep", *extra, events=1200)


@pytest.mark.parametrize("mode", [[], ["--processes", 2, "--output-mode", "shared-writer"]],
                         ids=["single", "shared-writer"])
@pytest.mark.parametrize("kind", ["root", "parallel-root"])
def test_an_output_directory_that_vanishes_fails_the_output(tmp_path, kind, mode):
    directory = tmp_path / "out"
    directory.mkdir()
    with background_lanes(*slow_job(kind, directory / "out.root", *mode)[1:], cwd=tmp_path) as process:
        wait_for(lambda: written_temporary(directory / "out.root"), 60, "the output's temporary file")
        shutil.rmtree(directory)
        result = result_of(process, tmp_path, 120, "the job")
    assert_one_line_error(result, "out.root'", "No such file or directory", code=1)
    assert not directory.exists()
    assert result.report["failed"] is True


@pytest.mark.parametrize("kind", KINDS)
def test_an_output_directory_that_cannot_be_written_is_refused_before_the_job(tmp_path, kind):
    result = run_limited(*job(kind, "/proc/out.root"), cwd=tmp_path)
    assert_one_line_error(result, "/proc/out.root", "cannot write", code=2)


def test_a_report_that_cannot_be_written_fails_the_job(tmp_path):
    result = run_limited("run", "-n", 50, "--source", f"root:file={NANO_FILE}", "--output", "dummy",
                         cwd=tmp_path, file_size_limit=100)
    assert_one_line_error(result, f"report.json': {TOO_LARGE}", code=1)
    assert_nothing_under(tmp_path / "report.json")


def test_a_trace_that_cannot_be_written_fails_the_job_and_the_report_says_so(tmp_path):
    result = run_limited("run", "-n", 200, "--source", f"root:file={NANO_FILE}", "--output", "dummy",
                         "--trace", "trace.json", cwd=tmp_path, file_size_limit=20000)
    assert_one_line_error(result, f"trace.json': {TOO_LARGE}", code=1)
    assert_nothing_under(tmp_path / "trace.json")
    assert result.report["failed"] is True and "trace.json" in result.report["error"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("processes", [[], MERGE], ids=["single", "merge"])
def test_a_job_that_fits_writes_exactly_the_events_it_counts(tmp_path, kind, processes):
    result = run_limited(*job(kind, "out.root", *processes), cwd=tmp_path, file_size_limit=64 << 20)
    assert result.returncode == 0, result.stderr
    written = (output_of(result.report) if not processes else result.report["outputs"][0])["events_written"]
    assert written == result.report["events"] == EVENTS
    assert event_count(tmp_path / "out.root") == EVENTS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.root", "report.json"]
