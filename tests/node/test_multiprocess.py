"""`lanes run --processes P`: forked workers (or independent jobs with --no-fork) share the events of one
job; every output is merged from the workers' parts at the end, or (--output-mode shared-writer) written
by the parent from the batches the workers ship as they go. Every output file is read back with uproot,
an independent reader, and must hold every event exactly once.
"""

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
import uproot

from conftest import BINARY
from lumis import assert_input_records, example, write_inputs

DATA = Path(__file__).resolve().parents[2] / "data" / "files"
# Events numbered 1..2421 (the file has no event id branches), two scalar branches kept.
SOURCE = f"root:file={DATA / 'uproot-HZZ-objects.root'},tree=events,branches=num_primaryvertex,branches=eventweight"
EVENTS = 300


def written_events(path, reader="root"):
    """The `event` column of a file lanes wrote, as a Counter."""
    if reader == "root":
        return Counter(uproot.open(path)["Events"]["event"].array(library="np").tolist())
    return Counter(uproot.open(path)["Events"].arrays(["event"], library="np")["event"].tolist())


def multiprocess(lanes, *extra, processes=2, output="root:file=out.root"):
    return lanes("run", "--processes", processes, "-t", 1, "--source", SOURCE, "-n", EVENTS, "--output", output, *extra)


def assert_exactly_once(path, reader="root"):
    counts = written_events(path, reader)
    assert sorted(counts) == list(range(1, EVENTS + 1))
    assert set(counts.values()) == {1}


def no_leftovers(directory):
    """Nothing but the merged files: no worker parts, no temporary names."""
    return [p.name for p in Path(directory).iterdir() if ".worker-" in p.name or ".partial-" in p.name]


def shipped(worker, output=-1):
    """What a worker's output shipped to the shared writer (its details in the worker's report)."""
    return worker["report"]["modules"][output]["details"]


@pytest.mark.parametrize("output_mode", ["merge", "shared-writer"])
@pytest.mark.parametrize("distribution", ["queue", "round-robin"])
@pytest.mark.parametrize("mode", ["fork", "no-fork"])
def test_every_event_is_written_exactly_once(lanes, tmp_path, distribution, mode, output_mode):
    extra = ["--distribution", distribution, "--chunk", 7, "--output-mode", output_mode]
    extra += ["--no-fork"] if mode == "no-fork" else []
    result = multiprocess(lanes, *extra, output="root:file=out.root,flush=20")
    assert result.returncode == 0, result.stderr
    assert_exactly_once(tmp_path / "out.root")
    report = result.report
    assert report["mode"] == mode and report["distribution"] == distribution
    assert report["output_mode"] == output_mode
    assert report["events"] == EVENTS
    assert [w["status"] for w in report["workers"]] == ["ok", "ok"]
    assert sum(w["events"] for w in report["workers"]) == EVENTS
    assert report["outputs"][0]["events_written"] == EVENTS
    if output_mode == "shared-writer":
        writer = report["writer"]
        assert writer["batches"] == sum(shipped(w)["batches_shipped"] for w in report["workers"])
        assert writer["batches"] >= EVENTS // 20  # flush=20: a batch at most every 20 events of a worker
        assert writer["bytes"] == sum(shipped(w)["bytes_shipped"] for w in report["workers"])
        assert report["outputs"][0]["batches_received"] == writer["batches"]
        assert not any(shipped(w)["committed"] for w in report["workers"])  # no worker wrote a file
    else:
        assert report["writer"] is None
    assert no_leftovers(tmp_path) == []


@pytest.mark.parametrize("output_mode", ["merge", "shared-writer"])
def test_each_lumi_and_run_is_written_once_with_its_products_merged(lanes, tmp_path, output_mode):
    """Runs and lumis (tests/lumis.py: two files with LuminosityBlocks and Runs trees) that each worker sees a part
    of (chunks of 3 events): every worker's entry of a run or lumi has the source's records, the sum of the files'
    rows, and the merged file takes them once; it adds up the events and the example module's products."""
    inputs = ",".join(f"file={path}" for path in write_inputs(tmp_path))
    result = lanes("run", "--processes", 2, "-t", 1, "--chunk", 3, "--output-mode", output_mode,
                   "--source", f"root:{inputs}", *example(), "--output", "root:file=out.root,flush=4")
    assert result.returncode == 0, result.stderr
    assert_input_records(tmp_path / "out.root", tmp_path)
    [written] = result.report["outputs"]
    assert (written["events_written"], written["lumis_written"], written["runs_written"]) == (14, 5, 3)


def test_a_shared_writer_takes_several_outputs_and_the_events_before_the_fork(lanes, tmp_path):
    result = multiprocess(
        lanes, "--output-mode", "shared-writer", "--events-before-fork", 5,
        "--output", "parallel-root:file=out2.root,concurrency=2,flush=15", processes=3,
    )
    assert result.returncode == 0, result.stderr
    assert result.report["prefork"]["events"] == 5
    assert_exactly_once(tmp_path / "out.root")
    assert_exactly_once(tmp_path / "out2.root")
    received = [o["batches_received"] for o in result.report["outputs"]]
    assert sum(received) == result.report["writer"]["batches"] and min(received) > 0
    assert no_leftovers(tmp_path) == []


@pytest.mark.parametrize("output_mode", ["merge", "shared-writer"])
def test_root_output_of_two_threads_per_worker_writes_every_event_once(lanes, tmp_path, output_mode):
    # At 2 threads and lanes a worker's `root` output writes through its parallel writer: TBufferMerger buffers merged
    # into the worker's part, or batches shipped from each buffer to the shared writer.
    result = lanes("run", "--processes", 2, "-t", 2, "--source", SOURCE, "-n", EVENTS, "--chunk", 7,
                   "--output-mode", output_mode, "--output", "root:file=out.root,flush=20")
    assert result.returncode == 0, result.stderr
    assert_exactly_once(tmp_path / "out.root")
    assert no_leftovers(tmp_path) == []
    if output_mode == "merge":
        assert {shipped(worker)["writer"] for worker in result.report["workers"]} == {"parallel"}


def test_a_shared_writer_job_refuses_imt_on_its_root_output(lanes, tmp_path):
    # Its writer merges the batches on a thread of its own: ROOT's flush of the merged tree would wait for tasks
    # on the job's threads, which may all be waiting for the writer (a hang of 1 MPI job in 6 before).
    result = multiprocess(lanes, "--output-mode", "shared-writer", output="root:file=out.root,imt=true")
    assert result.returncode == 1
    assert "imt=true cannot be used in a shared-writer job" in result.stderr
    assert not (tmp_path / "out.root").exists()
    assert no_leftovers(tmp_path) == []


def test_a_crashed_worker_fails_a_shared_writer_job_and_leaves_no_file(lanes, tmp_path):
    # Round-robin: the worker of the odd ordinals ships 7 batches before its 75th event, event 150, aborts it.
    result = multiprocess(lanes, "--output-mode", "shared-writer", "--distribution", "round-robin",
                          "--module", "fault:at=150,action=abort", output="root:file=out.root,flush=10")
    assert result.returncode == 1
    assert "killed by signal 6" in result.stderr
    assert result.report["writer"]["batches"] > 0  # batches were written before the crash ...
    assert not (tmp_path / "out.root").exists()  # ... and went with the file
    assert no_leftovers(tmp_path) == []


def test_round_robin_gives_worker_r_every_pth_event(lanes, tmp_path):
    result = multiprocess(lanes, "--distribution", "round-robin", processes=3)
    assert result.returncode == 0, result.stderr
    assert [w["events"] for w in result.report["workers"]] == [100, 100, 100]
    for worker in result.report["workers"]:
        part = worker["report"]["modules"][-1]["details"]["file"]
        # Its part names the parent too, so that a part a killed parent never merged is known as a leftover.
        assert part.endswith(f"out.worker-{worker['index']}-of-{result.report['pid']}.root") and worker["part"] in part


def test_events_before_fork_are_processed_by_the_parent_and_written_once(lanes, tmp_path):
    result = multiprocess(lanes, "--events-before-fork", 5, output="rntuple:file=out.root")
    assert result.returncode == 0, result.stderr
    assert result.report["prefork"]["events"] == 5
    assert sum(w["events"] for w in result.report["workers"]) == EVENTS - 5
    assert_exactly_once(tmp_path / "out.root", reader="rntuple")


@pytest.mark.parametrize("handles", ["shared", "lane"])
def test_an_rntuple_read_before_the_fork_is_closed_before_it(lanes, tmp_path, handles):
    """RNTuple's cluster cache reads ahead on a thread of each open reader. The parent closes the readers its events
    before the fork opened (Source::beforeFork), so that no thread runs at the fork; the workers open what they
    read. (It was refused: "2 threads are running before the fork".)"""
    muons = DATA / "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root"
    result = lanes("run", "--processes", 2, "-t", 2, "--events-before-fork", 10, "-n", EVENTS, "--source",
                   f"rntuple:file={muons},handles={handles}", "--output", "rntuple:file=out.root")
    assert result.returncode == 0, result.stderr
    assert result.report["threads_at_fork"] == 1
    assert result.report["prefork"]["events"] == 10
    assert_exactly_once(tmp_path / "out.root", reader="rntuple")


def test_several_outputs_are_each_merged(lanes, tmp_path):
    result = multiprocess(lanes, "--output", "rntuple-parallel:file=out.rntuple.root", output="parallel-root:file=out.root")
    assert result.returncode == 0, result.stderr
    assert_exactly_once(tmp_path / "out.root")
    assert_exactly_once(tmp_path / "out.rntuple.root", reader="rntuple")


def test_no_threads_run_at_the_fork_and_memory_is_measured(lanes):
    result = multiprocess(lanes)
    assert result.returncode == 0, result.stderr
    report = result.report
    assert report["threads_at_fork"] == 1
    memory = report["memory"]
    assert memory["parent"]["pss_bytes"] > 0
    assert memory["peak_total_pss_bytes"] >= memory["total_pss_bytes"]  # the end is one of the samples
    for worker in report["workers"]:
        assert 0 < worker["memory"]["uss_bytes"] <= worker["memory"]["pss_bytes"] <= worker["memory"]["rss_bytes"]
    assert memory["total_pss_bytes"] == memory["parent"]["pss_bytes"] + sum(
        w["memory"]["pss_bytes"] for w in report["workers"]
    )


def test_a_crashed_worker_fails_the_job_cleanly(lanes, tmp_path):
    result = multiprocess(lanes, "--module", "fault:at=50,action=abort")
    assert result.returncode == 1
    assert "killed by signal 6" in result.stderr and "--retry-lost" in result.stderr
    crashed = [w for w in result.report["workers"] if w.get("signal") == 6]
    assert len(crashed) == 1 and crashed[0]["status"] == "died"
    held = crashed[0]["lost_event_ordinals"]
    assert any(first <= 49 < end for first, end in held)  # event 50 is ordinal 49
    assert str(crashed[0]["pid"]) in result.stderr
    assert not (tmp_path / "out.root").exists()
    assert no_leftovers(tmp_path) == []


@pytest.mark.parametrize("distribution", ["queue", "round-robin"])
def test_retry_lost_gives_a_crashed_workers_events_to_another(lanes, tmp_path, distribution):
    once = tmp_path / "crashed-once"
    result = multiprocess(
        lanes, "--retry-lost", "--distribution", distribution, "--module", f"fault:at=50,action=abort,once={once}"
    )
    assert result.returncode == 0, result.stderr
    assert once.exists()  # it did crash
    workers = result.report["workers"]
    assert [w["status"] for w in workers].count("died") == 1
    assert any(w["replacement"] for w in workers)
    assert_exactly_once(tmp_path / "out.root")
    assert no_leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["--processes", 2, "--distribution", "scatter"], "--distribution"),
        (["--processes", 2, "--chunk", 0], "--chunk"),
        (["--processes", 0], "--processes"),
        (["--chunk", 5], "--chunk requires --processes"),
        (["--processes", 2, "--no-fork", "--events-before-fork", 3], "--events-before-fork needs forked workers"),
        (["--worker-role", "nonsense"], "--worker-role"),
        (["--processes", 2, "--output-mode", "shared"], "--output-mode"),
        (["--output-mode", "merge"], "--output-mode requires --processes"),
        (["--processes", 2, "--output-mode", "shared-writer", "--retry-lost"], "cannot take --retry-lost"),
        (["--processes", 2, "--output-mode", "shared-writer", "--output", "rntuple:file=x.root"], "rntuple (rntuple)"),
        (["--processes", 2, "--output-mode", "shared-writer"], "out (dummy)"),
    ],
)
def test_bad_multiprocess_options_are_one_line_errors(lanes, args, message):
    result = lanes("run", "-n", 10, *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2


def test_pinned_workers_get_disjoint_pus(lanes):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two PUs")
    result = multiprocess(lanes, "--pin", "numa-compact")
    assert result.returncode == 0, result.stderr
    pus = [tuple(w["report"]["pinning"]["pus"]) for w in result.report["workers"]]
    assert all(len(p) == 1 for p in pus) and len(set(pus)) == 2


def test_ctrl_c_stops_the_workers_and_their_parts_are_merged(tmp_path):
    """SIGINT to the parent reaches the workers: they finish their events in flight, and the merged file holds
    every event written exactly once."""
    report = tmp_path / "report.json"
    job = subprocess.Popen(
        [str(BINARY), "run", "--processes", "2", "-t", "1", "--source", f"{SOURCE},repeat=50", "-n", "0", "--endless",
         "--waiter", "busy:scale=1e-6", "--output", "root:file=out.root", "--report", str(report)],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 60
        # Both workers have written events: their parts hold more than ROOT's file header (63 bytes).
        while sum(p.stat().st_size > 1000 for p in tmp_path.glob("out.worker-*.root.partial-*")) < 2:
            assert job.poll() is None and time.monotonic() < deadline, "the workers never started writing"
            time.sleep(0.05)
        job.send_signal(signal.SIGINT)
        _, stderr = job.communicate(timeout=60)
    finally:
        job.kill()
    assert job.returncode == 128 + signal.SIGINT, stderr
    result = json.loads(report.read_text())
    assert result["stop_requested"] and result["events"] > 0
    counts = written_events(tmp_path / "out.root")
    assert sum(counts.values()) == result["events"] == result["outputs"][0]["events_written"]
    assert no_leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "strategy", ["sync-single", "sync-multi", "external-worker", "external-worker-d2h", "waiting-pool"]
)
def test_accelerator_strategies_run_in_forked_workers(lanes, strategy):
    """No strategy starts a thread before the fork (the waiting pool starts at its first wait)."""
    menu = Path(__file__).resolve().parents[2] / "examples" / "hlt-like.toml"
    result = lanes("run", "--menu", menu, "--accel", "emulated", "--accel-strategy", strategy,
                   "--processes", 2, "-t", 1, "-n", 40)
    assert result.returncode == 0, result.stderr
    assert result.report["threads_at_fork"] == 1
    assert sum(w["events"] for w in result.report["workers"]) == 40


def test_a_job_that_starts_threads_before_the_fork_is_refused(lanes, tmp_path):
    """The offload module starts its pool of plain threads when it is built, before the fork: a worker would
    inherit none of them, so the job refuses to fork, and writes nothing."""
    result = multiprocess(lanes, "--module", "offload:produces.x=10,threads=2")
    assert result.returncode == 2
    assert "threads are running before the fork" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.root").exists() and no_leftovers(tmp_path) == []
