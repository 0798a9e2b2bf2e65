"""`mpirun -np 3 lanes run --output-mode shared-writer ...`: the ranks ship their events in batches by MPI to
rank 0, which merges each into the one output file as it comes. The merged file must hold every event exactly
once (read back with uproot), a failing or killed rank, or a writer that cannot write, must leave nothing
under the final name, and the report carries the writer's figures. Outputs that cannot ship batches are refused in one line.

Skipped, with the reason, only when the build has no MPI.
"""

import os
import re
import shlex
import signal
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest
import uproot

from conftest import BINARY, Result
from test_mpi import (DATA, EVENTS, MPI_ENVIRONMENT, RANKS, SOURCE, lanes_errors, mpi_lanes, mpirun_command,
                      pytestmark, written_events)  # noqa: F401 (pytestmark: the same skip as test_mpi's)
from faults import assert_nothing_under, poll_until, written_temporary

SHARED = ["--output-mode", "shared-writer"]


def rank_pids(mpirun):
    return [int(pid) for pid in Path(f"/proc/{mpirun.pid}/task/{mpirun.pid}/children").read_text().split()]


@pytest.mark.parametrize("output, distribution", [("root", "mpi-queue"), ("parallel-root", "block")])
def test_every_event_is_written_exactly_once_by_rank_zero(tmp_path, output, distribution):
    # flush=15: a batch every 15 events of an output copy, so every rank ships several while the others run.
    result = mpi_lanes(tmp_path, "-t", 2, "-l", 4, "--source", SOURCE, "-n", EVENTS,
                       "--output", f"{output}:file=out.root,flush=15", "--distribution", distribution, "--chunk", 7,
                       *SHARED)
    assert result.returncode == 0, result.stderr
    counts = written_events(tmp_path / "out.root")
    assert sorted(counts) == list(range(1, EVENTS + 1)) and set(counts.values()) == {1}
    report = result.report
    assert report["mode"] == "mpi" and report["output_mode"] == "shared-writer" and not report["failed"]
    writer = report["writer"]
    shipped = [row["shipped"] for row in report["workers"]]
    assert [rank["batches"] for rank in writer["ranks"]] == [s["batches"] for s in shipped]
    assert [rank["bytes"] for rank in writer["ranks"]] == [s["bytes"] for s in shipped]
    assert writer["batches"] == sum(s["batches"] for s in shipped) >= EVENTS // 15
    assert writer["error"] == "" and 0 < writer["merge_s"] and 1 <= writer["most_queued"] <= writer["queue_batches"]
    assert writer["queue_batches"] == RANKS * writer["in_flight_per_rank"]
    [written] = report["outputs"]
    assert written["events_written"] == EVENTS and written["batches_received"] == writer["batches"]
    assert re.search(rf"^{EVENTS} events written to out\.root \([^)]*, by the shared writer, rank 0\)$", result.stdout,
                     re.MULTILINE), result.stdout
    # No part was written: the one file, and the report.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.root", "report.json"]


def test_each_of_two_outputs_gets_every_event_once(tmp_path):
    # Two outputs ship on two tags; rank 0 merges each batch into its own output.
    result = mpi_lanes(tmp_path, "-t", 2, "--source", SOURCE, "-n", EVENTS, "--output", "root:file=a.root,flush=20",
                       "--output", "parallel-root:file=b.root,flush=30", "--distribution", "round-robin", *SHARED)
    assert result.returncode == 0, result.stderr
    for name in ["a.root", "b.root"]:
        counts = written_events(tmp_path / name)
        assert sorted(counts) == list(range(1, EVENTS + 1)) and set(counts.values()) == {1}, name
    outputs = result.report["outputs"]
    assert [o["events_written"] for o in outputs] == [EVENTS, EVENTS]
    assert sum(o["batches_received"] for o in outputs) == result.report["writer"]["batches"]


@pytest.mark.parametrize("output", ["root", "parallel-root"])
def test_a_job_without_an_event_writes_the_empty_tree(tmp_path, output):
    # Each rank ships its empty tree when it shipped nothing else: rank 0 has the tree's branches to write.
    result = mpi_lanes(tmp_path, "-t", 1, "--source", SOURCE, "-n", 1, "--module", "fault:at=1,action=throw",
                       "--on-error", "skip", "--output", f"{output}:file=out.root", *SHARED)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == 0 and result.report["outputs"][0]["events_written"] == 0
    with uproot.open(tmp_path / "out.root") as file:
        assert file["Events"].num_entries == 0
        assert {"num_primaryvertex", "eventweight"} <= set(file["Events"].keys())


def test_a_failing_rank_leaves_nothing_under_the_final_name(tmp_path):
    result = mpi_lanes(tmp_path, "-t", 1, "--source", SOURCE, "-n", EVENTS, "--output", "root:file=out.root,flush=10",
                       "--module", "fault:at=150,action=throw", "--chunk", 5, *SHARED)
    assert result.returncode == 1
    errors = lanes_errors(result.stderr)
    assert len(errors) == 1 and "module 'fault'" in errors[0] and "150" in errors[0], result.stderr
    report = result.report
    assert report["failed"] and report["outputs"] == []
    assert [row["status"] for row in report["workers"]].count("failed") == 1
    assert_nothing_under(tmp_path / "out.root")


def test_a_writer_that_cannot_write_stops_every_rank_and_leaves_nothing(tmp_path):
    # Rank 0 alone may write 300 KiB a file (SIGXFSZ ignored: a full disk), less than the job's output; the
    # ranks talk over TCP, since the file limit would also refuse rank 0's shared-memory segment.
    nanoaod = DATA / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
    args = ["run", "-t", 1, "-n", 4000, "--source", f"root:file={nanoaod},repeat=200",
            "--output", "root:file=out.root,flush=200", *SHARED, "--report", tmp_path / "report.json"]
    lanes = " ".join(shlex.quote(str(a)) for a in [BINARY, *args])
    command = ["mpirun", "--oversubscribe", "-np", 1, "sh", "-c", f"ulimit -f 300; trap '' XFSZ; exec {lanes}",
               ":", "-np", RANKS - 1, BINARY, *args]
    environment = {**os.environ, **MPI_ENVIRONMENT, "OMPI_MCA_btl": "self,tcp"}
    completed = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                               stdin=subprocess.DEVNULL, env=environment)
    assert completed.returncode == 1, completed.stderr
    errors = lanes_errors(completed.stderr)
    assert len(errors) == 1, completed.stderr
    assert re.fullmatch(r"lanes: error: shared writer \(rank 0\): a batch from rank [0-2]: cannot write 'out.root': "
                        r"File too large", errors[0]), errors[0]
    report = Result(completed, tmp_path / "report.json").report
    assert report["failed"] and report["writer"]["error"] in errors[0] and report["outputs"] == []
    # The writer stopped the job: no rank ran to the end.
    assert report["events"] < 4000 and [row["status"] for row in report["workers"]] == ["stopped"] * RANKS
    assert_nothing_under(tmp_path / "out.root")


@pytest.mark.parametrize("output, plugin", [("root-events:file=out.root", "root-events"),
                                            ("hdf5:file=out.h5", "hdf5")])
def test_outputs_that_cannot_ship_batches_are_refused_once(tmp_path, output, plugin):
    result = mpi_lanes(tmp_path, "-t", 1, "--source", SOURCE, "-n", 30, "--output", output, *SHARED)
    assert result.returncode == 2
    errors = lanes_errors(result.stderr)
    assert len(errors) == 1, result.stderr
    assert f"({plugin}) cannot ship batches to a shared writer" in errors[0] and "--output-mode merge" in errors[0]
    assert [p.name for p in tmp_path.iterdir()] == []


@contextmanager
def endless_job_merging(tmp_path):
    """Starts an endless shared-writer job and yields it, with rank 0's pid, once rank 0 has merged a batch
    (its file grows as it merges: the ranks are running events); kills it if it still runs when the block ends."""
    # The first 100 events over and over (new event numbers each time), until the ranks are signalled.
    command = mpirun_command("-t", 1, "--source", f"{SOURCE},repeat=100", "-n", 0, "--endless",
                             "--waiter", "busy:scale=0.002", "--output", "root:file=out.root,flush=5", "--chunk", 2,
                             *SHARED, "--report", tmp_path / "report.json")
    with open(tmp_path / "stdout.txt", "w") as out, open(tmp_path / "stderr.txt", "w") as err:
        process = subprocess.Popen(command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                   env={**os.environ, **MPI_ENVIRONMENT})
    try:
        # Rank 0's file, out.root.partial-PID (PID: rank 0's), holds more than an empty ROOT file: a batch was
        # merged. (ROOT opens a file in two writes, its 63-byte header then the directory up to about 250 bytes:
        # a file seen to grow may only have been opening.)
        assert poll_until(lambda: written_temporary(tmp_path / "out.root", larger_than=1000), 120), "no batch was merged"
        partial = written_temporary(tmp_path / "out.root", larger_than=1000)
        assert poll_until(lambda: len(rank_pids(process)) == RANKS, 120)
        yield process, int(partial.name.rsplit("-", 1)[1])
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_sigterm_to_the_ranks_stops_them_and_the_writer_closes_the_file(tmp_path):
    with endless_job_merging(tmp_path) as (process, _):
        for rank in rank_pids(process):
            os.kill(rank, signal.SIGTERM)
    report = Result(subprocess.CompletedProcess([], process.returncode), tmp_path / "report.json").report
    assert report is not None, (tmp_path / "stderr.txt").read_text()
    assert report["stop_requested"] and report["signal"] == signal.SIGTERM and not report["failed"]
    counts = written_events(tmp_path / "out.root")
    assert sum(counts.values()) == report["events"] == report["outputs"][0]["events_written"] > 0
    assert set(counts.values()) == {1}
    assert report["writer"]["batches"] == sum(row["shipped"]["batches"] for row in report["workers"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.root", "report.json", "stderr.txt", "stdout.txt"]


def test_a_killed_rank_leaves_nothing_under_the_final_name(tmp_path):
    with endless_job_merging(tmp_path) as (process, rank_zero):
        os.kill(next(pid for pid in rank_pids(process) if pid != rank_zero), signal.SIGKILL)
    assert process.returncode != 0
    # mpirun ends every rank: rank 0's file stays under its temporary name (the next job warns about it).
    assert not (tmp_path / "out.root").exists() and not (tmp_path / "report.json").exists()
