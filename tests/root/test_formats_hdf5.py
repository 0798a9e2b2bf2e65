"""The hdf5 output and source, and rntuple-parallel flush=framework. NanoAOD written to HDF5 in either layout and
read back by lanes equals the original event by event (matched by id, read by uproot); h5py reads the columns
layout directly and finds uproot's arrays of the original; multi-process parts merge into one file holding every
event once; an interrupted job commits a valid file, a killed one leaves none."""

import signal

import awkward as ak
import h5py
import numpy as np
import pytest

from conftest import run_lanes
from rootio import (NANO, Events, assert_clean_failure, assert_distinct_ids, assert_same_events, background_lanes,
                    normalise, output_details, poll_until, read_events, read_input, result_of, source_spec,
                    type_signature, wait_for_partial)

LAYOUTS = ["columns", "blobs"]


def write_hdf5(directory, layout, *args, options=""):
    """Writes the NanoAOD file to directory/out.h5 in `layout`; returns (Result, path)."""
    path = directory / "out.h5"
    result = run_lanes("run", "--source", NANO.spec(), "--output", f"hdf5:file={path},layout={layout}{options}",
                       "-n", "0", "-t", "2", *args, cwd=directory, timeout=300)
    return result, path


def read_back(path, ids_only=False):
    """The hdf5 file at `path` read by the hdf5 source and written to a root file beside it, read by uproot
    (only the event ids if `ids_only`)."""
    again = path.with_name(path.stem + "-again.root")
    result = run_lanes("run", "--source", f"hdf5:file={path}", "--output", f"root:file={again}", "-n", "0", "-t", "2",
                       cwd=path.parent, timeout=300)
    assert result.returncode == 0, result.stderr
    assert output_details(result.report, "root")["events_written"] == result.report["events"]
    return read_events(again, ids_only=ids_only)


def h5py_events(path):
    """The events of an hdf5 file of layout=columns read by h5py alone, as rootio.Events."""
    with h5py.File(path, "r") as file:
        assert file.attrs["lanes_layout"] == b"columns"
        ids = [tuple(int(x) for x in row) for row in file["event_id"][...]]
        columns, types = {}, {}
        for label, group in file["products"].items():
            kind = group.attrs["kind"].decode()
            values = group["values"][...]
            if kind == "scalar":
                array = ak.Array(values)
            else:
                assert kind == "vector", (label, kind)  # NanoAOD holds only numbers
                counts = np.diff(group["offsets"][...], prepend=np.uint64(0))
                array = ak.unflatten(values, counts)
            columns[label] = normalise(ak.to_list(array))
            types[label] = type_signature(array.type.content)
    return Events(ids, columns, types)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """written(layout): the NanoAOD file written once per module in that layout: (Result, path)."""
    jobs = {}

    def write(layout):
        if layout not in jobs:
            jobs[layout] = write_hdf5(tmp_path_factory.mktemp(layout), layout)
        return jobs[layout]

    return write


@pytest.mark.parametrize("layout", LAYOUTS)
def test_round_trip(written, layout):
    result, path = written(layout)
    assert result.returncode == 0, result.stderr
    details = output_details(result.report, "hdf5")
    assert (details["committed"], details["events_written"]) == (True, NANO.events)
    assert_same_events(read_back(path), read_input(NANO))


def test_h5py_reads_the_columns(written):
    result, path = written("columns")
    assert result.returncode == 0, result.stderr
    assert_same_events(h5py_events(path), read_input(NANO))


def test_blobs_hold_bytes_with_offsets(written):
    result, path = written("blobs")
    assert result.returncode == 0, result.stderr
    with h5py.File(path, "r") as file:
        assert file.attrs["lanes_layout"] == b"blobs"
        assert len(file["event_id"]) == NANO.events
        for label, group in file["products"].items():
            assert group.attrs["kind"] == b"blob", label
            assert group["values"].dtype == np.uint8
            offsets = group["offsets"][...]
            assert len(offsets) == NANO.events and np.all(np.diff(offsets) >= 0) and offsets[-1] == len(group["values"])


def test_hdf5_source_and_output_in_one_job(written, tmp_path):
    """A job reading one HDF5 file and writing another, many events in flight, the blobs serialised concurrently:
    one lock for every HDF5 call. The copy (columns to blobs) reads back the same."""
    result, path = written("columns")
    assert result.returncode == 0, result.stderr
    copy = tmp_path / "copy.h5"
    result = run_lanes("run", "--source", f"hdf5:file={path},batch=13", "--output", f"hdf5:file={copy},layout=blobs",
                       "-n", "0", "-t", "4", "-l", "8", cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert output_details(result.report, "hdf5")["events_written"] == NANO.events
    assert_same_events(read_back(copy), read_input(NANO))


@pytest.mark.parametrize("options", [",deflate=1,batch=7,chunk=512", ",batch=64"])
def test_deflate_batch_and_chunk_settings_round_trip(tmp_path, options):
    result, path = write_hdf5(tmp_path, "columns", options=options)
    assert result.returncode == 0, result.stderr
    with h5py.File(path, "r") as file:
        values = file["products/Muon_pt/values"]
        assert values.compression == ("gzip" if "deflate=1" in options else None)
        assert values.chunks[0] * values.dtype.itemsize <= (512 if "chunk=512" in options else 1 << 20)
    assert_same_events(read_back(path), read_input(NANO))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_multiprocess_parts_merge_every_event_once(tmp_path, layout):
    result, path = write_hdf5(tmp_path, layout, "--processes", "2", options=",batch=9")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.glob("out*")) == ["out.h5"]  # the parts are gone
    with h5py.File(path, "r") as file:
        ids = [tuple(int(x) for x in row) for row in file["event_id"][...]]
    assert sorted(ids) == sorted(read_input(NANO).ids)
    assert_same_events(read_back(path), read_input(NANO))


@pytest.mark.parametrize("options", ["layout=rows", "deflate=10", "batch=0", "chunk=0"])
def test_bad_options_are_refused(lanes, tmp_path, options):
    result = lanes("run", "--source", NANO.spec(), "--output", f"hdf5:file={tmp_path / 'out.h5'},{options}")
    assert_clean_failure(result, options.split("=")[0], codes=(2,), output=tmp_path / "out.h5")


def test_shared_writer_is_refused(lanes, tmp_path):
    result = lanes("run", "--source", NANO.spec(), "--processes", "2", "--output-mode", "shared-writer",
                   "--output", f"hdf5:file={tmp_path / 'out.h5'}")
    assert_clean_failure(result, "hdf5", "shared writer", codes=(2,), output=tmp_path / "out.h5")


def start_endless_job(tmp_path):
    out = tmp_path / "out.h5"
    job = background_lanes("--source", NANO.spec(repeat=200), "-n", "0", "--endless", "-t", "2",
                           "--output", f"hdf5:file={out}", cwd=tmp_path)
    return job, out


def test_sigint_commits_a_valid_file(tmp_path):
    job, out = start_endless_job(tmp_path)
    with job as process:
        partial = wait_for_partial(process, out)
        poll_until(lambda: not partial.exists() or partial.stat().st_size > 2_000_000, 5)
        process.send_signal(signal.SIGINT)
        result = result_of(process, tmp_path, 30, "after SIGINT (the signal was lost?)")
    assert result.returncode == 128 + signal.SIGINT, result.stderr
    details = output_details(result.report, "hdf5")
    assert details["committed"] is True
    assert out.exists() and not partial.exists()
    with h5py.File(out, "r") as file:
        assert len(file["event_id"]) == details["events_written"] == result.report["events"] > 0
    assert_distinct_ids(read_back(out, ids_only=True))


def test_sigkill_leaves_no_output(tmp_path):
    job, out = start_endless_job(tmp_path)
    with job as process:
        partial = wait_for_partial(process, out)
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL
    assert partial.exists()
    assert not out.exists()


def test_rntuple_parallel_framework_flush(tmp_path, lanes):
    """Clusters flushed by tasks of their own (cluster= small enough for several) read back the same, by uproot and
    by the rntuple source."""
    out = tmp_path / "out.root"
    result = lanes("run", "--source", NANO.spec(), "-n", "0", "-t", "2", "--output",
                   f"rntuple-parallel:file={out},concurrency=2,flush=framework,cluster=200000")
    assert result.returncode == 0, result.stderr
    details = output_details(result.report, "rntuple-parallel")
    assert (details["committed"], details["events_written"]) == (True, NANO.events)
    assert details["flush_tasks"] > 0
    expected = read_input(NANO)
    assert_same_events(read_events(out), expected)
    again = tmp_path / "again.root"
    result = lanes("run", "--source", source_spec("rntuple", out), "-n", "0", "-t", "2", "--output", f"root:file={again}")
    assert result.returncode == 0, result.stderr
    assert_same_events(read_events(again), expected)
