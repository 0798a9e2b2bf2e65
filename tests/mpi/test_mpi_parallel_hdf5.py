"""`mpirun -np 3 lanes run --output hdf5:...,parallel=true`: the ranks write one HDF5 file together with parallel
HDF5, each rank its own events' slabs. h5py must read every event of the input exactly once in it, with uproot's
values of the input (layout=columns), or lanes' hdf5 source must read them back (layout=blobs); the run and lumi
records hold each lumi and run once; a failing rank leaves nothing; parallel=true is refused in one line, exit 2,
where it cannot work. The binary loads one HDF5 library: parallel and serial HDF5 define the same symbols.

Skipped, with the reason, only when the build has no MPI.
"""

import subprocess
from collections import Counter

import h5py
import numpy as np
import pytest

from conftest import BINARY, run_lanes
from test_mpi import RANKS, lanes_errors, mpi_lanes, pytestmark  # noqa: F401 (pytestmark: test_mpi's skip)
from faults import assert_nothing_under, assert_one_line_error
from rootio import NANO, assert_same_events, read_input
from test_formats_hdf5 import h5py_events, read_back
from test_lumi_records import SOURCE as LUMI_SOURCE, assert_records_of, event_ids, hdf5_records

# Scalars, arrays of floats, ints and bools: every kind of column, and offsets to shift.
KEEP = ",".join(f"keep={pattern}" for pattern in ["nMuon", "nJet", "Muon_*", "Jet_*"])


def write_together(directory, layout, *arguments, options=""):
    """NanoAOD's Muon and Jet products written by three ranks to directory/out.h5 with parallel=true."""
    output = f"hdf5:file=out.h5,layout={layout},parallel=true,batch=16,{KEEP}{options}"
    return mpi_lanes(directory, "-t", 1, "--source", NANO.spec(), "-n", NANO.events, "--output", output, "--chunk", 7,
                     *arguments, timeout=300)


def kept_products(events):
    return [p for p in events.products if p in ("nMuon", "nJet") or p.startswith(("Muon_", "Jet_"))]


def assert_one_file_written_together(result, directory):
    assert result.returncode == 0, result.stderr
    details = next(output for output in result.report["outputs"] if output["label"] == "hdf5")
    assert (details["parallel"], details["committed"], details["events_written"]) == (True, True, NANO.events)
    assert all(row["events"] > 0 for row in result.report["workers"]), result.report["workers"]  # every rank wrote
    left = sorted(p.name for p in directory.iterdir() if p.name.startswith("out."))
    assert left == ["out.h5"], left  # no part, no temporary
    with h5py.File(directory / "out.h5", "r") as file:
        numbers = Counter(int(row["event"]) for row in file["event_id"][...])
    assert sorted(numbers) == sorted(i[2] for i in read_input(NANO).ids) and set(numbers.values()) == {1}


@pytest.mark.parametrize("distribution, options", [("mpi-queue", ""), ("round-robin", ",deflate=1")])
def test_h5py_reads_every_event_once_with_the_inputs_values(tmp_path, distribution, options):
    result = write_together(tmp_path, "columns", "--distribution", distribution, options=options)
    assert_one_file_written_together(result, tmp_path)
    expected = read_input(NANO)
    assert_same_events(h5py_events(tmp_path / "out.h5"), expected, products=kept_products(expected))
    with h5py.File(tmp_path / "out.h5", "r") as file:  # every rank wrote a share of the slabs
        assert file["products/Muon_pt"].attrs["kind"] == b"vector"
        assert file["products/Muon_pt/values"].compression == ("gzip" if options else None)


@pytest.mark.parametrize("options", ["", ",serialization=unrolled,compression=zstd"])
def test_blobs_written_together_read_back_as_the_input(tmp_path, options):
    result = write_together(tmp_path, "blobs", "--distribution", "block", options=options)
    assert_one_file_written_together(result, tmp_path)
    with h5py.File(tmp_path / "out.h5", "r") as file:  # each rank's ends shifted by the ranks' before it
        for label, group in file["products"].items():
            values = len(group["values"])
            if "frames" in group:  # compress=batch: a frame per rank's batch, its end in the values
                frames = group["frames"][...]
                assert len(frames) == len(file["batch_ends"]) and np.all(np.diff(frames) > 0), label
                assert frames[-1] == values, label
            else:
                offsets = group["offsets"][...]
                assert len(offsets) == NANO.events and np.all(np.diff(offsets) >= 0), label
                assert offsets[-1] == values, label
        if options:
            assert list(file["batch_ends"][...]) == sorted(file["batch_ends"][...])
            assert file["batch_ends"][-1] == NANO.events
    expected = read_input(NANO)
    assert_same_events(read_back(tmp_path / "out.h5"), expected, products=kept_products(expected))


def test_run_and_lumi_records_are_merged_once_each(tmp_path):
    """Lumis of 3, 0 and 5 events, chunks of 3 events dealt to the ranks in turn: the ranks share lumis, and the
    process that merges adds one record per lumi and run to the file they wrote together, its events and products
    merged (test_lumi_records)."""
    result = mpi_lanes(tmp_path, "-t", 1, "--source", LUMI_SOURCE, "-n", 0, "--module", "test-lumi-products",
                       "--output", "hdf5:file=out.h5,parallel=true", "--distribution", "round-robin", "--chunk", 3,
                       timeout=300)
    assert result.returncode == 0, result.stderr
    assert all(row["events"] > 0 for row in result.report["workers"]), result.report["workers"]
    assert_records_of(hdf5_records(tmp_path / "out.h5"), event_ids("hdf5", tmp_path / "out.h5"))


def test_a_failing_rank_leaves_nothing(tmp_path):
    at = read_input(NANO).ids[100][2]  # an event number
    result = write_together(tmp_path, "columns", "--module", f"fault:at={at},action=throw")
    assert result.returncode == 1, result.stderr
    errors = lanes_errors(result.stderr)
    assert len(errors) == 1 and "module 'fault'" in errors[0] and str(at) in errors[0], result.stderr
    assert result.report["failed"] and result.report["outputs"] == []
    assert_nothing_under(tmp_path / "out.h5")


@pytest.mark.parametrize("arguments", [[], ["--processes", 2]])
def test_parallel_is_refused_outside_mpi(tmp_path, arguments):
    result = run_lanes("run", "--source", NANO.spec(), "-n", 10, *arguments,
                       "--output", f"hdf5:file={tmp_path / 'out.h5'},parallel=true", cwd=tmp_path)
    assert_one_line_error(result, "option 'parallel' writes one file together with the other ranks of an MPI job")
    assert result.returncode == 2
    assert_nothing_under(tmp_path / "out.h5")


@pytest.mark.parametrize("arguments, options, fragment", [
    (["--output-mode", "shared-writer"], "", "shared writer"),
    ([], ",parallel=maybe", "parallel"),
])
def test_parallel_is_refused_once_under_mpi_where_it_cannot_work(tmp_path, arguments, options, fragment):
    result = mpi_lanes(tmp_path, "-t", 1, "--source", NANO.spec(), "-n", 10, *arguments,
                       "--output", f"hdf5:file=out.h5,parallel=true{options}")
    assert result.returncode == 2
    errors = lanes_errors(result.stderr)
    assert len(errors) == 1 and fragment in errors[0], result.stderr
    assert_nothing_under(tmp_path / "out.h5")


def test_the_hdf5_plugin_loads_one_hdf5_library_and_the_binary_none():
    # lanes loads HDF5 with its optional plugin library, for a job that names the plugin (cli/OptionalPlugins.h).
    plugin = BINARY.parent.parent / "lib" / "lanes" / "optional" / "liblanes_hdf5.so"
    for binary, count in ((BINARY, 0), (plugin, 1)):
        libraries = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
        hdf5 = [line.split()[0] for line in libraries.splitlines() if "libhdf5" in line and "_hl" not in line]
        assert len(hdf5) == count and all("openmpi" in library for library in hdf5), libraries
