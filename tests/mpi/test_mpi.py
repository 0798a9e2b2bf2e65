"""`mpirun -np 3 lanes run ...`: one job over three MPI ranks (oversubscribed on this machine). The ranks
share the events (mpi-queue, block, round-robin), each writes its part, rank 0 merges them and writes one
report. Every merged file is read back with uproot and must hold every event exactly once.

Skipped, with the reason, only when the build has no MPI (CTest passes LANES_MPI, from CMake's FindMPI).
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import uproot

from conftest import BINARY, Result, run_lanes
from lumis import assert_input_records, example, write_inputs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "faults"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from faults import (assert_nothing_under, assert_one_line_error, nano_events_written, poll_until,  # noqa: E402
                    streamer_information_that_crashes_root)
from tracecheck import check  # noqa: E402

pytestmark = pytest.mark.skipif(os.environ.get("LANES_MPI") != "1" or not shutil.which("mpirun"),
                                reason="this build has no MPI (CMake found none), or mpirun is missing")

DATA = Path(__file__).resolve().parents[2] / "data" / "files"
# Events numbered 1..2421, two scalar branches kept.
SOURCE = f"root:file={DATA / 'uproot-HZZ-objects.root'},tree=events,branches=num_primaryvertex,branches=eventweight"
EVENTS = 300
RANKS = 3
# Root may run MPI jobs only when told so; the test tells its own jobs, not the user's environment. No
# binding: seven people share two cores.
MPI_ENVIRONMENT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_hwloc_base_binding_policy": "none"}


def mpirun_command(*args, ranks=RANKS, mpirun_options=()):
    return ["mpirun", "--oversubscribe", "-np", str(ranks), *mpirun_options, str(BINARY), "run",
            *[str(a) for a in args]]


def mpi_lanes(cwd, *args, ranks=RANKS, timeout=180, environment=None):
    """`mpirun -np RANKS lanes run ARGS --report cwd/report.json` in `cwd`, as a Result."""
    report = Path(cwd) / "report.json"
    completed = subprocess.run(mpirun_command(*args, "--report", report, ranks=ranks), capture_output=True, text=True,
                               timeout=timeout, cwd=cwd, stdin=subprocess.DEVNULL,
                               env={**os.environ, **MPI_ENVIRONMENT, **(environment or {})})
    return Result(completed, report)


def written_events(path):
    return Counter(uproot.open(path)["Events"]["event"].array(library="np").tolist())


def lanes_errors(stderr):
    """lanes' own error lines (mpirun adds its banners around them)."""
    return [line for line in stderr.splitlines() if line.startswith("lanes: error: ")]


def test_a_rank_killed_by_a_signal_first_says_what_it_read(tmp_path):
    """A second input file whose damaged streamer information makes ROOT die of a signal (tests/faults
    test_damaged_trees.py): with --chunk file, rank 1 opens it to count its entries and dies. It first prints one
    line naming itself, the file and what it read; mpirun then ends the job with a failure."""
    raw = nano_events_written(tmp_path / "raw.root", 50, "level=0")
    crashing = streamer_information_that_crashes_root(raw, tmp_path)
    result = mpi_lanes(tmp_path, "-t", 1, "--source", f"root:file={raw},file={crashing}", "-n", 0, "--chunk", "file",
                       ranks=2)
    assert result.returncode != 0
    said = [line for line in lanes_errors(result.stderr) if line.startswith("lanes: error: rank 1: signal ")]
    assert len(said) == 1, result.stderr
    assert said[0].endswith(f"'{crashing}': the file is probably damaged"), said[0]


def test_rank_zero_writes_the_html_page(tmp_path):
    result = mpi_lanes(tmp_path, "-t", 1, "--source", SOURCE, "-n", 30, "--html", tmp_path / "page.html")
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "page.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "</html>" in page
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".html"] == ["page.html"]


def test_rank_zero_gathers_one_trace_with_a_track_per_rank_on_its_clock(tmp_path):
    # The ranks record their parts in their temporary directory (TMPDIR) and send them to rank 0 by MPI.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    result = mpi_lanes(tmp_path, "-t", 2, "--source", SOURCE, "-n", 90, "--output", "root:file=out.root", "--chunk", 5,
                       "--trace", tmp_path / "trace.json", "--html", tmp_path / "page.html",
                       environment={"TMPDIR": str(temporary)})
    assert result.returncode == 0, result.stderr
    trace = check(json.loads((tmp_path / "trace.json").read_text()))  # fields, B/E balanced, no time before 0
    ranks = {row["pid"]: row for row in result.report["workers"]}
    assert trace["processes"] == {pid: f"rank {row['rank']} on {row['host']} (pid {pid})" for pid, row in ranks.items()}
    slices = [e for e in trace["events"] if e["ph"] == "X"]
    for pid, row in ranks.items():
        assert len([e for e in slices if e["pid"] == pid and e.get("cat") == "event" and e["name"] == "root"]) == row["events"]
    # One timeline: rank 0 merges the outputs only once every rank has reported its last event, so on rank 0's
    # clock every rank's slices end before that merge begins (and none begins before the job: check() above).
    (merge,) = [e for e in slices if e.get("cat") == "parent"]
    assert merge["name"] == "merge outputs" and ranks[merge["pid"]]["rank"] == 0
    assert max(e["ts"] + e["dur"] for e in slices if e is not merge) <= merge["ts"]
    assert 'id="trace-data"' in (tmp_path / "page.html").read_text()  # the page embeds the trace
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.root", "page.html", "report.json", "tmp", "trace.json"]
    assert list(temporary.iterdir()) == []  # every part sent, merged and removed


@pytest.mark.parametrize("distribution", ["mpi-queue", "block", "round-robin"])
def test_every_event_is_written_exactly_once(tmp_path, distribution):
    # Two threads and four lanes a rank: the lanes ask the dispenser for events concurrently.
    result = mpi_lanes(tmp_path, "-t", 2, "-l", 4, "--source", SOURCE, "-n", EVENTS, "--output", "root:file=out.root",
                       "--distribution", distribution, "--chunk", 7)
    assert result.returncode == 0, result.stderr
    counts = written_events(tmp_path / "out.root")
    assert sorted(counts) == list(range(1, EVENTS + 1)) and set(counts.values()) == {1}
    report = result.report
    assert report["mode"] == "mpi" and report["distribution"] == distribution and report["processes"] == RANKS
    assert [row["rank"] for row in report["workers"]] == list(range(RANKS))
    assert [row["status"] for row in report["workers"]] == ["ok"] * RANKS
    assert sum(row["events"] for row in report["workers"]) == report["events"] == EVENTS
    assert len({row["pid"] for row in report["workers"]}) == RANKS
    assert all(row["host"] and row["memory"]["rss_bytes"] > 0 for row in report["workers"])
    assert report["outputs"][0]["events_written"] == EVENTS
    if distribution == "block":  # rank r: the r-th third of the events
        assert [row["events"] for row in report["workers"]] == [EVENTS // RANKS] * RANKS
    # One report, printed once: by rank 0.
    assert result.stdout.count("events written to out.root") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.root", "report.json"]


@pytest.mark.parametrize("output_mode", ["merge", "shared-writer"])
def test_each_lumi_and_run_is_written_once_with_its_products_merged(tmp_path, output_mode):
    """tests/node's test of that name over three ranks: rank 0 merges the ranks' runs and lumis (their parts' records,
    or those their last batches carry) by (run, lumi), the source's records once and the module's products added."""
    inputs = ",".join(f"file={path}" for path in write_inputs(tmp_path))
    result = mpi_lanes(tmp_path, "-t", 1, "--chunk", 3, "--output-mode", output_mode, "--source", f"root:{inputs}",
                       *example(), "--output", "root:file=out.root,flush=4")
    assert result.returncode == 0, result.stderr
    assert_input_records(tmp_path / "out.root", tmp_path)
    [written] = result.report["outputs"]
    assert (written["events_written"], written["lumis_written"], written["runs_written"]) == (14, 5, 3)


FILE_SIZES = [40, 70, 25]


def numbered_files(directory):
    """Three input files of FILE_SIZES entries; with no id branches, event numbers count on across the files."""
    paths = []
    for index, size in enumerate(FILE_SIZES):
        path = directory / f"in{index}.root"
        with uproot.recreate(path) as file:
            file.mktree("Events", {"x": np.int32}).extend({"x": np.arange(size, dtype=np.int32)})
        paths.append(path)
    return paths


@pytest.mark.parametrize("distribution", ["mpi-queue", "block", "round-robin"])
def test_chunk_file_hands_each_rank_whole_files(tmp_path, distribution):
    files = numbered_files(tmp_path)
    source = "root:" + ",".join(f"file={path}" for path in files)
    result = mpi_lanes(tmp_path, "-t", 2, "-l", 4, "--source", source, "-n", 0, "--output", "root:file=out.root",
                       "--distribution", distribution, "--chunk", "file")
    assert result.returncode == 0, result.stderr
    counts = written_events(tmp_path / "out.root")
    assert sorted(counts) == list(range(1, sum(FILE_SIZES) + 1)) and set(counts.values()) == {1}
    report = result.report
    assert report["chunk"] == "file" and report["events"] == sum(FILE_SIZES)
    sizes = {str(path): size for path, size in zip(files, FILE_SIZES)}
    taken = [name for row in report["workers"] for name in row["files"]]
    assert sorted(taken) == sorted(sizes)  # each file read by one rank
    for row in report["workers"]:  # ... which names it, and read all of its events and no other
        assert row["events"] == sum(sizes[name] for name in row["files"]), row
    if distribution != "mpi-queue":  # three files, three ranks: rank r takes file r
        assert [row["files"] for row in report["workers"]] == [[str(path)] for path in files]
    assert "a file at a time" in result.stdout


def test_chunk_file_hands_out_rntuple_files_too(tmp_path):
    muons = DATA / "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root"
    copies = [tmp_path / f"muons{index}.root" for index in range(4)]
    for copy in copies:
        shutil.copy(muons, copy)
    source = "rntuple:fields=nMuon," + ",".join(f"file={copy}" for copy in copies)
    result = mpi_lanes(tmp_path, "-t", 1, "--source", source, "-n", 0, "--distribution", "round-robin",
                       "--chunk", "file")
    assert result.returncode == 0, result.stderr
    report = result.report
    assert report["events"] == 4000
    assert [row["files"] for row in report["workers"]] == [[str(copies[0]), str(copies[3])], [str(copies[1])],
                                                           [str(copies[2])]]
    assert [row["events"] for row in report["workers"]] == [2000, 1000, 1000]


def test_chunk_file_needs_a_source_of_several_files(tmp_path):
    result = mpi_lanes(tmp_path, "-t", 1, "--source", SOURCE, "--output", "root:file=out.root", "--chunk", "file")
    assert result.returncode == 2
    errors = lanes_errors(result.stderr)
    assert len(errors) == 1 and "--chunk file hands out whole input files, and this source reads one" in errors[0]
    assert_nothing_under(tmp_path / "out.root")


def test_the_queue_evens_out_skewed_costs(tmp_path):
    # The first third of the events cost 0.25 s each (sleeping, so the machine's load does not matter), the
    # rest nothing: a block distribution gives them all to rank 0, the queue to every rank.
    events = 60
    (tmp_path / "times.txt").write_text("".join("0.25\n" if n < events // 3 else "0\n" for n in range(events)))
    spreads = {}
    for distribution in ["block", "mpi-queue"]:
        run = tmp_path / distribution
        run.mkdir()
        result = mpi_lanes(run, "-t", 1, "--source", SOURCE, "-n", events, "--waiter",
                           f"event-time:file={tmp_path / 'times.txt'},mode=sleep", "--output", "root:file=out.root",
                           "--distribution", distribution, "--chunk", 1)
        assert result.returncode == 0, result.stderr
        assert sorted(written_events(run / "out.root")) == list(range(1, events + 1))
        spreads[distribution] = result.report["finish_spread_s"]
    # Block: rank 0 sleeps 5 s, the others ~0. The queue: a rank finishes at most one event (0.25 s) after
    # another, plus start-up jitter.
    assert spreads["block"] > 4.0, spreads
    assert spreads["mpi-queue"] < spreads["block"] / 2, spreads


def test_a_failing_rank_stops_every_rank_and_leaves_no_output(tmp_path):
    result = mpi_lanes(tmp_path, "-t", 1, "--source", SOURCE, "-n", EVENTS, "--output", "root:file=out.root",
                       "--module", "fault:at=150,action=throw", "--chunk", 5)
    assert result.returncode != 0
    errors = lanes_errors(result.stderr)
    assert len(errors) == 1, result.stderr
    assert "rank " in errors[0] and "(host " in errors[0] and "module 'fault'" in errors[0] and "150" in errors[0]
    report = result.report
    assert report["failed"] and report["error"] in errors[0]
    statuses = [row["status"] for row in report["workers"]]
    assert statuses.count("failed") == 1 and len(statuses) == RANKS
    assert report["outputs"] == []
    assert_nothing_under(tmp_path / "out.root")


@contextlib.contextmanager
def mpirun_in_background(tmp_path, command, **environment):
    """Starts `command` (stdout and stderr into tmp_path's stdout.txt and stderr.txt) and yields the Popen; it is
    killed if it is still running when the block ends."""
    with open(tmp_path / "stdout.txt", "w") as out, open(tmp_path / "stderr.txt", "w") as err:
        process = subprocess.Popen(command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                   env={**os.environ, **MPI_ENVIRONMENT, **environment})
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def assert_stopped_gracefully(tmp_path):
    """The report of a job whose ranks were stopped by SIGTERM: every rank stopped, the parts merged into
    out.root with every processed event once, no part left. Returns the report."""
    path = tmp_path / "report.json"
    assert path.exists(), (tmp_path / "stderr.txt").read_text()
    report = json.loads(path.read_text())
    assert report["stop_requested"] and report["signal"] == signal.SIGTERM and not report["failed"]
    assert [row["status"] for row in report["workers"]] == ["stopped"] * RANKS
    counts = written_events(tmp_path / "out.root")
    assert sum(counts.values()) == report["events"] == report["outputs"][0]["events_written"]
    assert set(counts.values()) == {1}
    assert not [p.name for p in tmp_path.iterdir() if ".worker-" in p.name]
    return report


def test_sigterm_to_the_ranks_stops_every_rank_gracefully(tmp_path):
    # As a batch system stops a job: SIGTERM to every rank (Ctrl-C to mpirun: the next test). The signal goes
    # once event 6 has been processed (the fault module's marker), so that some event is written.
    marker = tmp_path / "marker"
    command = mpirun_command("-t", 1, "--source", SOURCE, "-n", 0, "--waiter", "busy:scale=0.002",
                             "--module", f"fault:at=6,action=sleep,seconds=0,once={marker}",
                             "--output", "root:file=out.root", "--chunk", 2, "--report", tmp_path / "report.json")
    with mpirun_in_background(tmp_path, command) as process:
        parts = lambda: [p for p in tmp_path.iterdir() if ".worker-" in p.name]  # noqa: E731
        assert poll_until(lambda: len(parts()) == RANKS, 120), "the ranks did not start writing"
        assert poll_until(marker.exists, 120), "no rank processed event 6"
        ranks = [int(pid) for pid in Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()]
        assert len(ranks) == RANKS
        for rank in ranks:
            os.kill(rank, signal.SIGTERM)
        process.wait(timeout=120)
    assert_stopped_gracefully(tmp_path)
    assert "events written to out.root" in (tmp_path / "stdout.txt").read_text()


def test_ctrl_c_to_mpirun_with_a_raised_kill_timeout_merges_the_parts_and_writes_the_report(tmp_path):
    # OpenMPI passes Ctrl-C on as SIGTERM to the ranks (here, about odls_base_sigkill_timeout seconds after it) and
    # SIGKILLs them that long again later (default 1 s: docs/mpi.md says to raise it), and it stops reading the
    # ranks' output. The output and the report must be complete before then: rank 0 writes them before it prints
    # its summary, which here (a row per product's waiter, 947 of them) is longer than a pipe holds.
    marker = tmp_path / "marker"
    command = mpirun_command("-t", 1, "--source", f"root:file={DATA / 'nanoAOD_2015_CMS_Open_Data_ttbar.root'},repeat=200",
                             "-n", 0, "--endless", "--waiter", "busy:scale=1e-10",
                             "--module", "analyzer:time=0.002,work=sleep",
                             "--module", f"fault:at=227291415,action=sleep,seconds=0,once={marker}",  # the file's 6th
                             "--output", "root:file=out.root,keep=nMuon", "--chunk", 2,
                             "--report", tmp_path / "report.json")
    with mpirun_in_background(tmp_path, command, OMPI_MCA_odls_base_sigkill_timeout="20") as process:
        assert poll_until(marker.exists, 120), "no rank processed the file's 6th event"
        process.send_signal(signal.SIGINT)
        process.wait(timeout=180)
    assert process.returncode != 0  # mpirun's own status for a job it ended
    assert_stopped_gracefully(tmp_path)


@pytest.mark.parametrize("arguments, fragment", [
    (["--distribution", "queue"], "--distribution under MPI must be 'mpi-queue', 'block' or 'round-robin'"),
    (["--distribution", "block", "-n", 0], "--distribution block splits the job's events into blocks: give"),
    (["--processes", 2], "--processes cannot be combined with MPI ranks"),
    (["--processes", 2, "--output-mode", "shared-writer"], "--processes cannot be combined with MPI ranks"),
])
def test_bad_options_under_mpi_are_refused_once(tmp_path, arguments, fragment):
    result = mpi_lanes(tmp_path, "-t", 1, "--source", SOURCE, "--output", "root:file=out.root", *arguments)
    assert result.returncode != 0
    errors = lanes_errors(result.stderr)
    assert len(errors) == 1 and fragment in errors[0], result.stderr
    assert_nothing_under(tmp_path / "out.root")


@pytest.mark.parametrize("arguments, fragment", [
    (["--distribution", "block"], "--distribution requires --processes (or an MPI job"),
    (["--chunk", 5], "--chunk requires --processes (or an MPI job"),
    (["--chunk", "file"], "--chunk requires --processes (or an MPI job"),
    (["--processes", 2, "--chunk", "file"], "--chunk file hands whole input files to MPI ranks; --processes takes"),
    (["--processes", 2, "--chunk", "files"], "got 'files' (or 'file')"),
])
def test_mpi_options_without_mpi_are_refused(tmp_path, arguments, fragment):
    result = run_lanes("run", "-n", 10, *arguments, cwd=tmp_path)
    assert_one_line_error(result, fragment)


def test_a_killed_rank_ends_the_job_and_leaves_nothing_under_the_final_name(tmp_path):
    # The signal goes once event 6 has been processed (the fault module's marker), so that some event is written.
    marker = tmp_path / "marker"
    command = mpirun_command("-t", 1, "--source", SOURCE, "-n", 0, "--waiter", "busy:scale=0.002",
                             "--module", f"fault:at=6,action=sleep,seconds=0,once={marker}",
                             "--output", "root:file=out.root", "--chunk", 2, "--report", tmp_path / "report.json")
    with open(tmp_path / "stderr.txt", "w") as err:
        process = subprocess.Popen(command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=err, env={**os.environ, **MPI_ENVIRONMENT})
    try:
        # A rank's part is written under out.worker-RANK.root.partial-PID: its name says whom to kill.
        parts = lambda: [p.name for p in tmp_path.iterdir() if ".partial-" in p.name]  # noqa: E731
        assert poll_until(lambda: len(parts()) == RANKS, 120), "the ranks did not start writing"
        assert poll_until(marker.exists, 120), "no rank processed event 6"
        victim = next(name for name in parts() if ".worker-1." in name)
        os.kill(int(victim.rsplit("-", 1)[1]), signal.SIGKILL)
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode != 0
    # mpirun ends every rank: no merge, no report; the parts stay under their temporary names.
    assert not (tmp_path / "out.root").exists()
    assert not (tmp_path / "report.json").exists()


def test_a_second_writer_of_the_output_is_refused_once_by_rank_zero(tmp_path):
    # The first job holds at its first event (a fault module waits for a file) with out.root claimed.
    held, go = tmp_path / "held", tmp_path / "go"
    first = subprocess.Popen([str(BINARY), "run", "-t", "1", "--source", SOURCE, "-n", "20", "--module",
                              f"fault:at=1,action=wait,until={go},once={held}", "--output", "root:file=out.root"],
                             cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    try:
        assert poll_until(lambda: held.exists() or first.poll() is not None, 120), "the first job did not start"
        result = mpi_lanes(tmp_path, "-t", 1, "--source", SOURCE, "-n", 30, "--output", "root:file=out.root")
        assert result.returncode != 0
        errors = lanes_errors(result.stderr)
        assert len(errors) == 1, result.stderr
        assert f"output 'root' (file=out.root) is being written by another lanes job (pid {first.pid} on host " \
               in errors[0], errors[0]
        go.touch()
        assert first.wait(timeout=120) == 0, first.stderr.read()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert sum(written_events(tmp_path / "out.root").values()) == 20
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out.")) == ["out.root"]
