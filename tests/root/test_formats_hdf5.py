"""The hdf5 output and source, and rntuple-parallel flush=framework. NanoAOD written to HDF5 in either layout and
read back by lanes equals the original event by event (matched by id, read by uproot); h5py reads the columns
layout directly and finds uproot's arrays of the original; test-products written as blobs with each serialisation
and framework compression read back into check-products; several files read as one job, each event once, also by
two processes; multi-process parts merge into one file holding every event once; an interrupted job commits a
valid file, a killed one leaves none."""

import shutil
import signal

import awkward as ak
import h5py
import numpy as np
import pytest

from conftest import run_lanes
from rootio import (NANO, Events, assert_clean_failure, assert_distinct_ids, assert_same_events, background_lanes,
                    keep_hdf5_events, normalise, output_details, poll_until, read_events, read_input, result_of,
                    source_spec, type_signature, wait_for_partial)

LAYOUTS = ["columns", "blobs"]
# compression x compress= (a frame per blob, or per product per written batch)
COMPRESSIONS = ["none", "lz4,compress=product", "lz4,compress=batch", "zstd,compress=product", "zstd,compress=batch",
                "lz4,level=4,compress=batch", "zstd,level=5,compress=product"]
FRAME_ALGORITHM = {"lz4": 0x21, "zstd": 0x22}  # a codec frame's first byte: version 2 << 4 | the algorithm
TEST_EVENTS = 23


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


def assert_checksummed(file):
    """lanes_version 2: every dataset chunked with HDF5's Fletcher32 filter, and the 1.10 file format, whose
    superblock (version 3) and object headers carry checksums."""
    assert file.attrs["lanes_version"] == 2
    datasets = []
    file.visititems(lambda name, item: datasets.append(item) if isinstance(item, h5py.Dataset) else None)
    assert datasets and all(dataset.fletcher32 and dataset.chunks for dataset in datasets)
    with open(file.filename, "rb") as raw:
        assert raw.read(9)[8] == 3


def h5py_events(path):
    """The events of an hdf5 file of layout=columns read by h5py alone, as rootio.Events."""
    with h5py.File(path, "r") as file:
        assert file.attrs["lanes_layout"] == b"columns"
        assert_checksummed(file)
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
        assert_checksummed(file)
        assert len(file["event_id"]) == NANO.events
        for label, group in file["products"].items():
            assert group.attrs["kind"] == b"blob", label
            assert group["values"].dtype == np.uint8
            offsets = group["offsets"][...]
            assert len(offsets) == NANO.events and np.all(np.diff(offsets) >= 0) and offsets[-1] == len(group["values"])


@pytest.mark.parametrize("options", ["", ",compression=zstd,batch=13",
                                     ",serialization=unrolled,compression=lz4,compress=product"])
def test_hdf5_source_and_output_in_one_job(written, tmp_path, options):
    """A job reading one HDF5 file and writing another, many events in flight, the blobs serialised (and compressed
    per blob) concurrently, or each batch's compressed by parallel tasks: one lock for every HDF5 call. The copy
    (columns to blobs) reads back the same."""
    result, path = written("columns")
    assert result.returncode == 0, result.stderr
    copy = tmp_path / "copy.h5"
    result = run_lanes("run", "--source", f"hdf5:file={path},batch=13", "--output",
                       f"hdf5:file={copy},layout=blobs{options}", "-n", "0", "-t", "4", "-l", "8", cwd=tmp_path,
                       timeout=300)
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


def write_test_products(path, options, *args):
    """test-products (TEST_EVENTS events) written to the hdf5 file `path` with `options`; the Result."""
    return run_lanes("run", "-n", "0", "-t", "2", "--source", f"test-products:events={TEST_EVENTS}",
                     "--output", f"hdf5:file={path},{options}", *args, cwd=path.parent, timeout=300)


def check_products(source, *args, cwd):
    """A job reading `source` into check-products (and whatever outputs `args` add); the Result."""
    return run_lanes("run", "-n", "0", "-t", "2", "--source", source, "--output", "check-products", *args, cwd=cwd,
                     timeout=300)


def event_numbers(path):
    """The event numbers of an hdf5 file, read by h5py, sorted."""
    with h5py.File(path, "r") as file:
        return sorted(int(event) for event in file["event_id"]["event"])


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("serialization", ["root", "unrolled"])
def test_test_products_round_trip_through_blobs(tmp_path, serialization, compression):
    path = tmp_path / "blobs.h5"
    algorithm = compression.split(",")[0]
    compress = compression.split("compress=")[-1] if algorithm != "none" else ""
    written = write_test_products(path, f"layout=blobs,serialization={serialization},compression={compression},batch=4")
    assert written.returncode == 0, written.stderr
    details = output_details(written.report, "hdf5")
    assert (details["events_written"], details["serialization"], details["compression"], details["compress"]) == (
        TEST_EVENTS, serialization, algorithm, compress)
    with h5py.File(path, "r") as file:  # the file records what was used; each blob or batch is a frame, or none
        assert (file.attrs["lanes_serialization"], file.attrs["lanes_compression"]) == (
            serialization.encode(), algorithm.encode())
        assert file.attrs.get("lanes_compress", b"") == compress.encode()
        if compress == "batch":
            assert list(file["batch_ends"][...]) == [4, 8, 12, 16, 20, 23]
        for label, group in file["products"].items():
            ends = group["frames" if compress == "batch" else "offsets"][...]
            starts = np.concatenate(([0], ends[:-1])).astype(np.int64)
            if algorithm != "none":
                assert set(group["values"][...][starts]) == {FRAME_ALGORITHM[algorithm]}, label
    read = check_products(f"hdf5:file={path}", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    assert output_details(read.report, "check-products") == {"events_checked": TEST_EVENTS, "products_checked": 10}


def test_nanoaod_round_trip_through_compressed_blobs(tmp_path):
    result, path = write_hdf5(tmp_path, "blobs", options=",serialization=unrolled,compression=lz4,batch=50")
    assert result.returncode == 0, result.stderr
    assert_same_events(read_back(path), read_input(NANO))


def test_multiprocess_parts_of_compressed_blobs_merge(tmp_path):
    path = tmp_path / "out.h5"
    result = write_test_products(path, "layout=blobs,compression=zstd,batch=3", "--processes", "2", "--chunk", "4")
    assert result.returncode == 0, result.stderr
    assert event_numbers(path) == list(range(1, TEST_EVENTS + 1))
    with h5py.File(path, "r") as file:  # the parts' batches and frames, appended
        assert (file.attrs["lanes_compression"], file.attrs["lanes_compress"]) == (b"zstd", b"batch")
        ends = file["batch_ends"][...]
        assert list(ends) == sorted(ends) and ends[-1] == TEST_EVENTS
        frames = file["products/floats/frames"][...]
        assert len(frames) == len(ends) and frames[-1] == len(file["products/floats/values"])
    read = check_products(f"hdf5:file={path}", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    assert output_details(read.report, "check-products")["events_checked"] == TEST_EVENTS


def split_test_products(directory, options, at=12):
    """test-products written with `options` in `directory` (made), then split into first.h5 (events 1..at) and
    second.h5 (the rest)."""
    directory.mkdir(exist_ok=True)
    whole = directory / "whole.h5"
    # One lane writes the events in order; batches of 4: a compress=batch split falls at a batch's end.
    result = run_lanes("run", "-n", "0", "-t", "1", "-l", "1", "--source", f"test-products:events={TEST_EVENTS}",
                       "--output", f"hdf5:file={whole},{options},batch=4", cwd=directory)
    assert result.returncode == 0, result.stderr
    parts = [directory / "first.h5", directory / "second.h5"]
    for part, (start, stop) in zip(parts, [(0, at), (at, TEST_EVENTS)]):
        shutil.copyfile(whole, part)
        keep_hdf5_events(part, start, stop)
    whole.unlink()
    return parts


@pytest.mark.parametrize("first_options,second_options", [
    ("layout=blobs,compression=zstd", "layout=blobs,compression=zstd"),
    ("layout=columns", "layout=columns"),
    ("layout=blobs,serialization=unrolled,compression=lz4", "layout=columns"),  # each file records its own
])
def test_two_files_are_read_as_one(tmp_path, first_options, second_options):
    """Every event of both files once, with its own id: check-products recomputes each from its number, and the
    copy written on the way holds 1..23 (h5py)."""
    first = split_test_products(tmp_path / "a", first_options)[0]
    second = split_test_products(tmp_path / "b", second_options)[1]
    assert event_numbers(first) == list(range(1, 13)) and event_numbers(second) == list(range(13, TEST_EVENTS + 1))
    copy = tmp_path / "copy.h5"
    result = check_products(f"hdf5:file={first},file={second},batch=5", "--output", f"hdf5:file={copy},layout=blobs",
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == TEST_EVENTS
    assert output_details(result.report, "check-products")["events_checked"] == TEST_EVENTS
    assert event_numbers(copy) == list(range(1, TEST_EVENTS + 1))


@pytest.mark.parametrize("distribution", ["queue", "round-robin"])
def test_an_event_range_spanning_two_files_with_two_processes(tmp_path, distribution):
    """files=LIST read by two processes whose chunks of 5 straddle the files' boundary (event 12): each event once."""
    first, second = split_test_products(tmp_path, "layout=blobs,compression=lz4")
    listing = tmp_path / "inputs.txt"
    listing.write_text(f"{first.name}\n# the rest\n{second.name}\n")
    copy = tmp_path / "copy.h5"
    result = check_products(f"hdf5:files={listing},batch=4", "--output", f"hdf5:file={copy},layout=blobs",
                            "--processes", "2", "--distribution", distribution, "--chunk", "5", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == TEST_EVENTS
    assert event_numbers(copy) == list(range(1, TEST_EVENTS + 1))


@pytest.mark.parametrize("options", ["layout=rows", "deflate=10", "batch=0", "chunk=0", "serialization=java",
                                     "compression=lzma", "layout=blobs,compression=zstd,level=99", "compress=batch",
                                     "layout=columns,compression=lz4", "layout=columns,level=3",
                                     "layout=blobs,compression=zstd,deflate=1", "layout=blobs,level=3",
                                     "layout=blobs,compression=lz4,compress=event"])
def test_bad_options_are_refused(lanes, tmp_path, options):
    result = lanes("run", "--source", NANO.spec(), "--output", f"hdf5:file={tmp_path / 'out.h5'},{options}")
    assert_clean_failure(result, options.split(",")[-1].split("=")[0], codes=(2,), output=tmp_path / "out.h5")


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
