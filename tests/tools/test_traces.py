"""Every kind of `--trace` checked against the trace-event format (tracecheck.py): a single process; a
multi-process job (fork and --no-fork, queue and round-robin, merge and shared writer), merged into one trace
with a process track per worker on the parent's clock; an accelerator job, with its device queues as tracks and
flows from acquire to the device and back to produce, from the emulated device and (where there is a GPU) CUDA."""

import functools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import BINARY, REPO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tracecheck import TraceError, check  # noqa: E402

DATA = REPO / "data" / "files"
MENU = REPO / "examples" / "hlt-like.toml"
ROOT_SOURCE = f"root:file={DATA / 'uproot-HZZ-objects.root'},tree=events,branches=num_primaryvertex,branches=eventweight"


def lanes(*args, cwd):
    return subprocess.run([str(BINARY), *map(str, args)], capture_output=True, text=True, timeout=240, cwd=cwd,
                          stdin=subprocess.DEVNULL)


def traced(directory, *args):
    completed = lanes("run", *args, "--report", "report.json", "--trace", "trace.json", cwd=directory)
    assert completed.returncode == 0, completed.stderr
    return json.loads((directory / "trace.json").read_text()), json.loads((directory / "report.json").read_text())


def calls(result, pid, category="event"):
    return [e for e in result["events"] if e["ph"] == "X" and e["pid"] == pid and e.get("cat") == category]


def test_a_single_process_trace(tmp_path):
    trace, report = traced(tmp_path, "-t", "2", "-n", "50", "--source", "synthetic:size.a=10", "--waiter", "busy",
                           "--output", "dummy")
    result = check(trace)
    assert len(result["processes"]) == 1
    (pid,) = result["processes"]
    assert len([e for e in result["events"] if e["ph"] == "X" and e["name"] == "source"]) >= 50
    assert {tid for p, tid in result["threads"]} == {e["tid"] for e in result["events"] if e["ph"] == "X"}
    assert trace["otherData"]["clock_origin_ns"] > 0


@pytest.mark.parametrize("extra", [
    ["--distribution", "queue"],
    ["--distribution", "round-robin"],
    ["--no-fork", "--distribution", "round-robin"],
    ["--output-mode", "shared-writer", "--events-before-fork", "5"],
], ids=["fork-queue", "fork-round-robin", "no-fork", "shared-writer"])
def test_a_multi_process_job_writes_one_trace_with_a_track_per_worker(tmp_path, extra):
    trace, report = traced(tmp_path, "-p", "2", "-t", "2", "-n", "120", "--source", ROOT_SOURCE, "--output",
                           "root:file=out.root,flush=20", "--chunk", "10", *extra)
    result = check(trace)
    parent = [pid for pid, name in result["processes"].items() if name.startswith("lanes parent")]
    assert len(parent) == 1
    workers = {w["pid"]: w for w in report["workers"]}
    assert set(result["processes"]) == set(workers) | set(parent)  # one track per worker, and the parent's
    for pid, worker in workers.items():
        assert result["processes"][pid] == f"{worker['part']} (pid {pid})"
        if worker["events"]:  # (a queue may leave a worker nothing to do)
            assert any(p == pid for p, tid in result["threads"])  # its threads beneath it
        # Each worker's output saw each of its events once.
        assert len([e for e in calls(result, pid) if e["name"] == "root"]) == worker["events"]
        # On the parent's clock: its calls fall within its own start and finish, as the report measured them.
        ts = [e["ts"] for e in result["events"] if e["pid"] == pid and e["ph"] == "X"]
        assert not ts or worker["started_s"] * 1e6 - 5e4 <= min(ts) and max(ts) <= worker["finished_s"] * 1e6 + 5e4
    work = [e for e in result["events"] if e["pid"] == parent[0] and e.get("cat") == "parent"]
    assert work, "the parent's merge or shared-writer work is on its track"
    last_worker_call = max(e["ts"] + e["dur"] for e in result["events"] if e["pid"] in workers and e["ph"] == "X")
    assert max(e["ts"] for e in work) >= last_worker_call - 1  # the parent closes the outputs last
    if "--events-before-fork" in extra:
        assert len([e for e in calls(result, parent[0]) if e["name"] == "root"]) == 5
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("trace")) == ["trace.json"]


def test_a_worker_that_died_is_named_on_its_track_and_leaves_no_part(tmp_path):
    once = tmp_path / "crashed-once"
    trace, report = traced(tmp_path, "-p", "2", "-t", "1", "-n", "120", "--source", ROOT_SOURCE, "--output",
                           "root:file=out.root", "--retry-lost", "--module", f"fault:at=50,action=abort,once={once}")
    result = check(trace)
    died = [w for w in report["workers"] if w["status"] == "died"]
    assert len(died) == 1 and once.exists()
    assert set(result["processes"]) >= {w["pid"] for w in report["workers"]}
    notes = [e for e in result["events"] if e["ph"] == "i" and e["pid"] == died[0]["pid"]]
    assert [e["name"] for e in notes] == [f"{died[0]['part']} wrote no trace"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("trace")) == ["trace.json"]


def test_a_failed_multi_process_job_still_writes_its_trace_and_no_part(tmp_path):
    completed = lanes("run", "-p", "2", "-t", "1", "-n", "120", "--source", ROOT_SOURCE, "--output",
                      "root:file=out.root", "--module", "fault:at=50,action=abort", "--trace", "trace.json",
                      cwd=tmp_path)
    assert completed.returncode == 1
    check(json.loads((tmp_path / "trace.json").read_text()))  # a failed job's trace is still written ...
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("trace")) == ["trace.json"]  # ... alone


def enclosing(result, event):
    """The slice on the flow event's thread that holds its timestamp."""
    return next(e for e in result["events"] if e["ph"] == "X" and (e["pid"], e["tid"]) == (event["pid"], event["tid"])
                and e["ts"] <= event["ts"] <= e["ts"] + e["dur"])


STRATEGIES = ["sync-single", "sync-multi", "external-worker", "waiting-pool"]


def accelerator_trace(directory, backend, strategy):
    return traced(directory, "--menu", MENU, "-n", "10", "-t", "2", "--accel", backend, "--accel-strategy", strategy)


def check_device_queues_and_flows(trace, report, strategy):
    result = check(trace)
    queues = {tid: name for (pid, tid), name in result["threads"].items() if name.startswith("device queue")}
    assert queues
    device = [e for e in result["events"] if e["ph"] == "X" and e["tid"] in queues]
    accel = {m["label"] for m in report["modules"] if m["plugin"] == "accel"}
    kernels = [e for e in device if e["name"] in accel]
    assert len(kernels) == 10 * len(accel)  # a box per kernel
    assert {e["name"] for e in device} - accel <= {"copy to device", "copy to host"}
    assert any(e["name"] == "copy to host" for e in device)
    starts = {e["id"]: e for e in result["events"] if e["ph"] == "s"}
    ends = {e["id"]: e for e in result["events"] if e["ph"] == "f"}
    into_device = [i for i, f in ends.items() if f["tid"] in queues]
    assert len(into_device) == len(kernels)  # every kernel: an arrow from its module's acquire
    for flow in into_device:
        assert enclosing(result, starts[flow])["cat"] == "acquire"
        assert enclosing(result, starts[flow])["name"] == enclosing(result, ends[flow])["name"]
    back = [i for i, f in ends.items() if f["tid"] not in queues]
    assert back, "arrows from the device back to produce"
    for flow in back:
        assert starts[flow]["tid"] in queues
        assert enclosing(result, ends[flow])["cat"] == "event"
        assert enclosing(result, ends[flow])["name"] == enclosing(result, starts[flow])["name"]
    waiting = accel if strategy != "waiting-pool" else {"pixelVertices", "ecalClusters", "ecalTiming", "hcalRecHits"}
    assert waiting <= {enclosing(result, ends[flow])["name"] for flow in back}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_accelerator_job_shows_its_device_queues_and_flows(tmp_path, strategy):
    check_device_queues_and_flows(*accelerator_trace(tmp_path, "emulated:launch=1e-6", strategy), strategy)


@functools.cache
def cuda_missing():
    """Why a `--accel cuda` job cannot run here (no CUDA backend in the build, or no GPU), or None."""
    with tempfile.TemporaryDirectory() as directory:
        stderr = lanes("run", "--menu", MENU, "-n", "1", "--accel", "cuda", cwd=directory).stderr
    for cause, reason in [("is not in this build", "no CUDA backend in this build"),
                          ("found no CUDA device", "no CUDA device here")]:
        if cause in stderr:
            return reason
    return None


# The same trace from a GPU: every copy and kernel timed by CUDA events on its stream's track.
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_cuda_job_shows_its_device_queues_and_flows(tmp_path, strategy):
    if cuda_missing():
        pytest.skip(cuda_missing())
    check_device_queues_and_flows(*accelerator_trace(tmp_path, "cuda", strategy), strategy)


def test_a_multi_process_accelerator_job_keeps_every_workers_flows_apart(tmp_path):
    trace, report = traced(tmp_path, "-p", "2", "-t", "1", "-n", "20", "--menu", MENU, "--distribution",
                           "round-robin", "--accel", "emulated:launch=1e-6", "--accel-strategy", "external-worker")
    result = check(trace)  # flows resolve within each worker: their ids do not collide
    for worker in report["workers"]:
        queues = [tid for (pid, tid), name in result["threads"].items()
                  if pid == worker["pid"] and name.startswith("device queue")]
        assert queues, f"{worker['part']} has its device queues beneath it"
    assert result["flows"] == 2 * 20 * len({m["label"] for m in report["workers"][0]["report"]["modules"]
                                            if m["plugin"] == "accel"})


def test_the_checker_refuses_what_is_not_a_trace():
    good = {"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "p"}},
                            {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]}
    check(good)
    broken = [
        {"ph": "B", "name": "a", "pid": 1, "tid": 1, "ts": 0},  # never ended
        {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0},  # no dur
        {"ph": "X", "name": "a", "pid": 2, "tid": 1, "ts": 0, "dur": 1},  # a process without a name
        {"ph": "s", "name": "a", "cat": "c", "id": 7, "pid": 1, "tid": 1, "ts": 1},  # a flow that does not resolve
        {"ph": "X", "name": "a", "pid": 1, "ts": 0, "dur": 1},  # no tid
    ]
    for event in broken:
        with pytest.raises(TraceError):
            check({"traceEvents": good["traceEvents"] + [event]})
