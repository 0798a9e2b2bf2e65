"""Forked workers and the files their parent opened: with --events-before-fork the parent reads the first events,
so the `root` source holds its input open when it forks. ROOT reads a file by seek and then read, and a descriptor
inherited across a fork shares its offset, so workers reading through it would move each other's offset between
the two and read wrong bytes. Each worker reopens its files first (Source::afterFork).

The input is an uncompressed TTree of many small baskets, read without a TTreeCache (cache=0), so that every basket
is a seek and a read, and a wrong read shows as a wrong value or a failed basket rather than a checksum error. The
jobs run under strace, which stops each process at every lseek and read: that widens the window between the two
from a microsecond to a context switch, so that the workers interleave there in most runs (without the reopening,
10 of 12 runs with lseek traced failed, and 4 of 4 with read traced too). Every value written is compared with
uproot's reading of the input, in several runs of each job."""

import shutil
import subprocess

import awkward as ak
import numpy as np
import pytest
import uproot

from conftest import BINARY, Result
from faults import read_events
from rootio import assert_same_events

EVENTS = 5000
BASKET = 50  # entries per basket: a hundred baskets per branch, read by every worker
RUNS = 3

pytestmark = pytest.mark.skipif(shutil.which("strace") is None, reason="strace (scripts/setup installs it) is needed")


@pytest.fixture(scope="module")
def uncompressed(tmp_path_factory):
    """An uncompressed TTree `Events` of EVENTS events: ids, a double, an int and a jagged array of floats."""
    path = tmp_path_factory.mktemp("input") / "uncompressed.root"
    rng = np.random.default_rng(7)
    with uproot.recreate(path, compression=None) as file:
        tree = None
        for start in range(0, EVENTS, BASKET):
            counts = rng.integers(0, 6, BASKET)
            columns = {"run": np.ones(BASKET, np.uint32), "luminosityBlock": np.ones(BASKET, np.uint32),
                       "event": np.arange(start + 1, start + BASKET + 1, dtype=np.uint64),
                       "x": rng.normal(size=BASKET), "i": rng.integers(-1000, 1000, BASKET).astype(np.int32),
                       "v": ak.unflatten(rng.normal(size=int(counts.sum())).astype(np.float32), counts)}
            if tree is None:
                types = {k: v.type if isinstance(v, ak.Array) else v.dtype for k, v in columns.items()}
                tree = file.mktree("Events", types)
            tree.extend(columns)
    return path


def run_traced(*args, cwd):
    """`lanes run ARGS --report cwd/report.json` and its workers, each stopped by strace at every lseek and read."""
    report = cwd / "report.json"
    report.unlink(missing_ok=True)
    command = ["strace", "-qq", "-f", "-e", "trace=lseek,read", "-o", "/dev/null", str(BINARY), "run",
               *map(str, args), "--report", str(report)]
    return Result(subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=cwd,
                                 stdin=subprocess.DEVNULL), report)


@pytest.mark.parametrize("handles", ["shared", "lane"])
@pytest.mark.parametrize("processes", [2, 3])
def test_workers_forked_after_the_parent_read_the_file_read_every_value_right(tmp_path, uncompressed, processes,
                                                                             handles):
    expected = read_events(uncompressed)
    out = tmp_path / "out.root"
    for run in range(RUNS):
        result = run_traced("--processes", processes, "--events-before-fork", 10, "-t", 2, "-n", 0, "--source",
                            f"root:file={uncompressed},handles={handles},cache=0", "--output",
                            f"root:file={out},level=0", cwd=tmp_path)
        assert result.returncode == 0, (run, result.stderr)
        assert result.report["events"] == EVENTS
        assert_same_events(read_events(out), expected)
        out.unlink()
