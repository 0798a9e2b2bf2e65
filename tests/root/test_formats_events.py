"""The root-events format end to end: test-products written with every serialisation x compression x compress
choice and read back by the root-events source into check-products; the NanoAOD file written to root-events,
read back, written to a `root` file and compared by uproot, event by event, with the original; a multi-process
job whose merged file holds every event once; several files (each with its own serialisation and compression)
read as one job, by one process or two whose chunks straddle the files, and a list with a bad file in it; and
check-products failing on a product that differs."""

import itertools
import shutil

import pytest
import uproot

from conftest import run_lanes
from rootio import (HZZ, NANO, assert_clean_failure, assert_same_events, keep_hdf5_events, output_details,
                    read_events, read_input)

SERIALIZATIONS = ("root", "unrolled")
COMPRESSIONS = ("none", "lz4", "zstd")
COMPRESS = ("product", "event", "batch", "both")
TEST_EVENTS = 23  # batches of 4 leave a partial last batch


def blob_events(path):
    """The event numbers a root-events file holds, read by uproot from its id branch."""
    with uproot.open(path) as file:
        return [e for batch in file["EventBlobs"]["event"].array(library="np") for e in batch]


@pytest.mark.parametrize("serialization,compression,compress",
                         list(itertools.product(SERIALIZATIONS, COMPRESSIONS, COMPRESS)))
def test_test_products_round_trip(tmp_path, serialization, compression, compress):
    path = tmp_path / "events.root"
    spec = (f"root-events:file={path},serialization={serialization},compression={compression},"
            f"compress={compress},batch=4")
    written = run_lanes("run", "-n", "0", "-t", "2", "--source", f"test-products:events={TEST_EVENTS}",
                        "--output", spec, cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    details = output_details(written.report, "root-events")
    assert (details["events_written"], details["entries"]) == (TEST_EVENTS, 6)
    assert sorted(blob_events(path)) == list(range(1, TEST_EVENTS + 1))
    read = run_lanes("run", "-n", "0", "-t", "2", "--source", f"root-events:file={path}",
                     "--output", "check-products", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    assert output_details(read.report, "check-products") == {"events_checked": TEST_EVENTS, "products_checked": 10}


@pytest.mark.parametrize("serialization", SERIALIZATIONS)
def test_nanoaod_round_trip_through_root_events(tmp_path, serialization):
    events = tmp_path / "events.root"
    copy = tmp_path / "copy.root"
    written = run_lanes("run", "-n", "0", "-t", "2", "--source", f"root:file={NANO.path}",
                        "--output", f"root-events:file={events},serialization={serialization},compression=zstd,batch=8",
                        cwd=tmp_path, timeout=300)
    assert written.returncode == 0, written.stderr
    read = run_lanes("run", "-n", "0", "-t", "2", "--source", f"root-events:file={events}",
                     "--output", f"root:file={copy}", cwd=tmp_path, timeout=300)
    assert read.returncode == 0, read.stderr
    assert_same_events(read_events(copy), read_input(NANO))


def test_objects_round_trip_with_root_serialization(tmp_path):
    """Classes with a dictionary (TVector2, TVector3) and vectors of numbers and bools, through root-events."""
    products = ["MET", "MC_lepton", "muonq", "jetid"]
    events = tmp_path / "events.root"
    copy = tmp_path / "copy.root"
    branches = ",".join(f"branches={p}" for p in products)
    written = run_lanes("run", "-n", "0", "-t", "2", "--source", f"root:file={HZZ.path},tree=events,{branches}",
                        "--output", f"root-events:file={events},compress=both,batch=16", cwd=tmp_path, timeout=300)
    assert written.returncode == 0, written.stderr
    read = run_lanes("run", "-n", "0", "-t", "2", "--source", f"root-events:file={events}",
                     "--output", f"root:file={copy}", cwd=tmp_path, timeout=300)
    assert read.returncode == 0, read.stderr
    assert_same_events(read_events(copy), read_input(HZZ), products=products)


def test_check_products_names_the_product_and_event_that_differ(tmp_path):
    """A read-back that gives other values fails: here the events of a file are renumbered by repeat=, so the
    values no longer match their event numbers."""
    path = tmp_path / "events.root"
    written = run_lanes("run", "-n", "0", "--source", "test-products:events=5", "--output",
                        f"root-events:file={path}", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    result = run_lanes("run", "-n", "10", "-t", "1", "--source", f"root-events:file={path},repeat=5",
                       "--output", "check-products", cwd=tmp_path)
    assert_clean_failure(result, "check-products: product '", "of event 1:1:6")


@pytest.mark.parametrize("before_fork", [0, 5])
def test_multi_process_merge_holds_every_event_once(tmp_path, before_fork):
    """Workers write parts that the parent merges; with --events-before-fork the parent writes the first events
    and each forked worker begins its own part (its own batches and tasks) after them."""
    path = tmp_path / "events.root"
    result = run_lanes("run", "--processes", "2", "--events-before-fork", before_fork, "-t", "2", "-n", "0",
                       "--chunk", "3",
                       "--source", "test-products:events=40", "--output",
                       f"root-events:file={path},compression=zstd,compress=batch,batch=5", cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert sorted(blob_events(path)) == list(range(1, 41))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("events")) == ["events.root"]
    read = run_lanes("run", "-n", "0", "--source", f"root-events:file={path}", "--output", "check-products",
                     cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    assert output_details(read.report, "check-products")["events_checked"] == 40


@pytest.mark.parametrize("distribution", ["queue", "round-robin"])
def test_multi_process_read_of_root_events(tmp_path, distribution):
    """Workers of a multi-process job read one root-events file (round-robin skips the others' events without
    opening their bytes) and together check every event once."""
    path = tmp_path / "events.root"
    written = run_lanes("run", "-n", "0", "--source", "test-products:events=30", "--output",
                        f"root-events:file={path},batch=4", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    read = run_lanes("run", "--processes", "2", "-t", "1", "-n", "0", "--distribution", distribution, "--chunk", "3",
                     "--source", f"root-events:file={path}", "--output", "check-products", cwd=tmp_path, timeout=300)
    assert read.returncode == 0, read.stderr
    assert read.report["events"] == 30


def test_shared_writer_is_refused_in_one_line(tmp_path):
    result = run_lanes("run", "--processes", "2", "--output-mode", "shared-writer", "-n", "10",
                       "--source", "test-products", "--output", f"root-events:file={tmp_path / 'e.root'}",
                       cwd=tmp_path)
    assert_clean_failure(result, "root-events", codes=(2,), output=tmp_path / "e.root")


def test_textdump_names_every_product_per_event_and_on_average(tmp_path):
    path = tmp_path / "dump.txt"
    result = run_lanes("run", "-n", "4", "-t", "2", "--source", "test-products", "--output",
                       f"textdump:file={path},keep=floats,keep=text", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = path.read_text().splitlines()
    per_event = sorted(line for line in lines if line.startswith("event "))
    assert [line.split(":")[2] for line in per_event] == ["1", "2", "3", "4"]
    assert all(" floats=" in line and " text=" in line for line in per_event)
    assert lines[4] == "average bytes per event over 4 events:"
    assert [line.split()[0] for line in lines[5:]] == ["floats", "text"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("dump")) == ["dump.txt"]


def test_textdump_parts_of_a_multi_process_job_are_concatenated(tmp_path):
    path = tmp_path / "dump.txt"
    result = run_lanes("run", "--processes", "2", "-t", "1", "-n", "12", "--source", "test-products", "--output",
                       f"textdump:file={path},summary=false,keep=number", cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    numbers = sorted(int(line.split(":")[2]) for line in path.read_text().splitlines())
    assert numbers == list(range(1, 13))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("dump")) == ["dump.txt"]


# The two files of a split job: events 1..12 and 13..23, each written with other settings.
SPLIT_SETTINGS = ("compression=lz4,compress=event,batch=4",
                  "serialization=unrolled,compression=zstd,compress=batch,batch=3")


def split_root_events(tmp_path):
    """test-products events 1..23 written as two root-events files, first.root (1..12) and second.root (13..23):
    through hdf5 files that h5py splits, since test-products always begins at event 1."""
    whole = tmp_path / "whole.h5"
    written = run_lanes("run", "-n", "0", "-t", "1", "-l", "1", "--source", f"test-products:events={TEST_EVENTS}",
                        "--output", f"hdf5:file={whole},layout=blobs", cwd=tmp_path)  # one lane: in order
    assert written.returncode == 0, written.stderr
    parts = []
    for name, (start, stop), settings in zip(("first", "second"), [(0, 12), (12, TEST_EVENTS)], SPLIT_SETTINGS):
        part = tmp_path / f"{name}.h5"
        shutil.copyfile(whole, part)
        keep_hdf5_events(part, start, stop)
        events = tmp_path / f"{name}.root"
        converted = run_lanes("run", "-n", "0", "--source", f"hdf5:file={part}", "--output",
                              f"root-events:file={events},{settings}", cwd=tmp_path)
        assert converted.returncode == 0, converted.stderr
        parts.append(events)
    assert sorted(blob_events(parts[0])) == list(range(1, 13))
    assert sorted(blob_events(parts[1])) == list(range(13, TEST_EVENTS + 1))
    return parts


def test_two_files_are_read_as_one(tmp_path):
    first, second = split_root_events(tmp_path)
    copy = tmp_path / "copy.root"
    read = run_lanes("run", "-n", "0", "-t", "2", "--source", f"root-events:file={first},file={second}",
                     "--output", "check-products", "--output", f"root-events:file={copy}", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    assert read.report["events"] == TEST_EVENTS
    assert output_details(read.report, "check-products")["events_checked"] == TEST_EVENTS
    assert sorted(blob_events(copy)) == list(range(1, TEST_EVENTS + 1))


@pytest.mark.parametrize("distribution", ["queue", "round-robin"])
def test_an_event_range_spanning_two_files_with_two_processes(tmp_path, distribution):
    """files=LIST read by two processes whose chunks of 5 straddle the files' boundary (event 12): each event once."""
    first, second = split_root_events(tmp_path)
    listing = tmp_path / "inputs.txt"
    listing.write_text(f"{first}\n{second.name}\n")
    copy = tmp_path / "copy.root"
    read = run_lanes("run", "--processes", "2", "-t", "1", "-n", "0", "--distribution", distribution, "--chunk", "5",
                     "--source", f"root-events:files={listing}", "--output", "check-products",
                     "--output", f"root-events:file={copy}", cwd=tmp_path, timeout=300)
    assert read.returncode == 0, read.stderr
    assert read.report["events"] == TEST_EVENTS
    assert sorted(blob_events(copy)) == list(range(1, TEST_EVENTS + 1))


@pytest.mark.parametrize("problem", ["missing", "text", "truncated", "other-products"])
def test_bad_second_file(tmp_path, problem):
    """A second file that is missing or no ROOT file is refused before the job runs (exit 2); one that is
    truncated or holds other products, when the job reaches it (exit 1). Each named in one line."""
    first = tmp_path / "first.root"
    written = run_lanes("run", "-n", "0", "--source", "test-products:events=8", "--output",
                        f"root-events:file={first},batch=3", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    second = tmp_path / "second.root"
    if problem == "text":
        second.write_text("run,event\n1,1\n")
    elif problem == "truncated":
        second.write_bytes(first.read_bytes()[:2000])
    elif problem == "other-products":
        written = run_lanes("run", "-n", "0", "--source", "test-products:events=8", "--output",
                            f"root-events:file={second},keep=number", cwd=tmp_path)
        assert written.returncode == 0, written.stderr
    fragment = {"missing": "does not exist", "text": "is not a readable ROOT file",
                "truncated": "",  # ROOT's words depend on where the cut falls
                "other-products": "holds other products than the first input file"}[problem]
    result = run_lanes("run", "-n", "0", "-t", "2", "--source", f"root-events:file={first},file={second}",
                       "--output", "check-products", cwd=tmp_path)
    assert_clean_failure(result, str(second), fragment, codes=(2,) if problem in ("missing", "text") else (1,))


def test_skip_bad_files_leaves_out_the_bad_ones(tmp_path):
    first, second = split_root_events(tmp_path)
    truncated = tmp_path / "truncated.root"
    truncated.write_bytes(first.read_bytes()[:2000])
    missing = tmp_path / "missing.root"
    result = run_lanes("run", "-n", "0", "-t", "2", "--source",
                       f"root-events:file={first},file={missing},file={truncated},file={second},skip-bad-files=true",
                       "--output", "check-products", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    warnings = result.stderr.strip().splitlines()
    assert len(warnings) == 2 and all(line.startswith("lanes: warning: skipped '") for line in warnings), warnings
    assert [entry["file"] for entry in result.report["source"]["skipped_files"]] == [str(missing), str(truncated)]
    assert output_details(result.report, "check-products")["events_checked"] == TEST_EVENTS
