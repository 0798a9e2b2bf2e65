"""The pds (packed data stream) format end to end: test-products written with every serialisation x compression
x compress choice and read back by the pds source (one shared handle, and a handle per lane) into check-products;
the NanoAOD file written to pds, read back, written to a `root` file and compared by uproot, event by event, with
the original; a multi-process job whose merged file holds every event once, under one header. An independent
reader (pdsfile.py, from the byte layout in docs/formats.md) checks the header, the records, their checksums and
their frames of sizes."""

import itertools

import pytest

from conftest import run_lanes
from pdsfile import pds_events, read_pds
from rootio import NANO, assert_clean_failure, assert_same_events, output_details, read_events, read_input

SERIALIZATIONS = ("root", "unrolled")
COMPRESSIONS = ("none", "lz4", "zstd")
COMPRESS = ("product", "event", "batch", "both")
TEST_EVENTS = 23  # batches of 4 leave a partial last batch


@pytest.mark.parametrize("serialization,compression,compress",
                         list(itertools.product(SERIALIZATIONS, COMPRESSIONS, COMPRESS)))
def test_test_products_round_trip(tmp_path, serialization, compression, compress):
    path = tmp_path / "events.pds"
    spec = f"pds:file={path},serialization={serialization},compression={compression},compress={compress},batch=4"
    written = run_lanes("run", "-n", "0", "-t", "2", "--source", f"test-products:events={TEST_EVENTS}",
                        "--output", spec, cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    details = output_details(written.report, "pds")
    assert (details["events_written"], details["records"]) == (TEST_EVENTS, 6)
    header, records = read_pds(path)
    assert (header["version"], header["serialization"], header["compression"], header["compress"]) == (
        3, serialization, compression, compress)
    assert len(header["products"]) == 10 and all(record.checksum_ok for record in records)
    for record in records:
        frame = record.sizes_frame
        assert (frame.version, frame.algorithm, frame.checksum_ok) == (2, 1, True)  # always lz4
        assert len(frame.open()) == 4 * 10 * len(record.ids)
    assert sorted(pds_events(path)) == list(range(1, TEST_EVENTS + 1))
    for handles in ("shared", "lane"):
        read = run_lanes("run", "-n", "0", "-t", "2", "--source", f"pds:file={path},handles={handles}",
                         "--output", "check-products", cwd=tmp_path)
        assert read.returncode == 0, read.stderr
        assert output_details(read.report, "check-products") == {"events_checked": TEST_EVENTS,
                                                                  "products_checked": 10}


@pytest.mark.parametrize("serialization,handles", [("root", "shared"), ("unrolled", "lane")])
def test_nanoaod_round_trip_through_pds(tmp_path, serialization, handles):
    events = tmp_path / "events.pds"
    copy = tmp_path / "copy.root"
    written = run_lanes("run", "-n", "0", "-t", "2", "--source", f"root:file={NANO.path}", "--output",
                        f"pds:file={events},serialization={serialization},compression=zstd,compress=both,batch=8",
                        cwd=tmp_path, timeout=300)
    assert written.returncode == 0, written.stderr
    read = run_lanes("run", "-n", "0", "-t", "2", "--source", f"pds:file={events},handles={handles}",
                     "--output", f"root:file={copy}", cwd=tmp_path, timeout=300)
    assert read.returncode == 0, read.stderr
    assert_same_events(read_events(copy), read_input(NANO))


@pytest.mark.parametrize("before_fork", [0, 5])
def test_multi_process_merge_holds_every_event_once(tmp_path, before_fork):
    """Workers write parts that the parent concatenates under one header; with --events-before-fork the parent
    writes the first events and each forked worker begins its own part after them."""
    path = tmp_path / "events.pds"
    result = run_lanes("run", "--processes", "2", "--events-before-fork", before_fork, "-t", "2", "-n", "0",
                       "--chunk", "3", "--source", "test-products:events=40", "--output",
                       f"pds:file={path},compression=zstd,compress=batch,batch=5", cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert sorted(pds_events(path)) == list(range(1, 41))
    assert all(record.checksum_ok for record in read_pds(path)[1])
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("events")) == ["events.pds"]
    read = run_lanes("run", "-n", "0", "--source", f"pds:file={path}", "--output", "check-products", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    assert output_details(read.report, "check-products")["events_checked"] == 40


@pytest.mark.parametrize("distribution", ["queue", "round-robin"])
def test_multi_process_read_of_pds(tmp_path, distribution):
    """Workers of a multi-process job read one pds file (skipping the others' events) and together check every
    event once."""
    path = tmp_path / "events.pds"
    written = run_lanes("run", "-n", "0", "--source", "test-products:events=30", "--output",
                        f"pds:file={path},batch=4", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    read = run_lanes("run", "--processes", "2", "-t", "1", "-n", "0", "--distribution", distribution, "--chunk", "3",
                     "--source", f"pds:file={path}", "--output", "check-products", cwd=tmp_path, timeout=300)
    assert read.returncode == 0, read.stderr
    assert read.report["events"] == 30


def test_lane_handles_read_every_event_once_with_many_lanes(tmp_path):
    """handles=lane with more lanes than threads and a chunk smaller than a record: lanes share records, each
    reading them through its own handle."""
    path = tmp_path / "events.pds"
    written = run_lanes("run", "-n", "0", "--source", "test-products:events=50", "--output",
                        f"pds:file={path},batch=7,compress=both", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    read = run_lanes("run", "-n", "0", "-t", "2", "-l", "5", "--source", f"pds:file={path},handles=lane,chunk=3",
                     "--output", "check-products", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    assert output_details(read.report, "check-products")["events_checked"] == 50


def test_shared_writer_is_refused_in_one_line(tmp_path):
    result = run_lanes("run", "--processes", "2", "--output-mode", "shared-writer", "-n", "10",
                       "--source", "test-products", "--output", f"pds:file={tmp_path / 'e.pds'}", cwd=tmp_path)
    assert_clean_failure(result, "pds", codes=(2,), output=tmp_path / "e.pds")
