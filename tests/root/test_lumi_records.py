"""The run and lumi records of the blob formats (root-events, pds, hdf5) end to end. A job of lumis of 3, 0 and 5
events in turn (every third lumi empty), two a run, with test-lumi-products, writes each format; an independent
reader (uproot, pdsfile.py, h5py) finds one record per lumi and per run, the empty ones included, whose events and
products agree with the events' ids in the file; the format's source reads it back (its lumis from the ids, the
empty ones from the records) into another format, which holds the same records. The parts of a multi-process job
merge into one record per lumi and run; a file without records still reads; and every problem with records is one
line: a product no format can store, one that cannot be merged (a lumi that comes back, two processes, two input
files), and damaged records."""

import struct

import h5py
import numpy as np
import pytest
import uproot
import xxhash

from conftest import run_lanes
from pdsfile import NOT_PUT, read_pds
from rootio import assert_clean_failure

EVENTS = 40
SOURCE = f"test-products:events={EVENTS},events-per-lumi=3:0:5,lumis-per-run=2"
# 15 lumis (3, 0, 5 events, five times over) of 8 runs
LUMIS, EMPTY_LUMIS, RUNS = 15, 5, 8
FORMATS = ("root-events", "pds", "hdf5")
EXTENSION = {"root-events": "root", "pds": "pds", "hdf5": "h5"}
# Where each format's copy goes: another format.
COPY = {"root-events": "pds", "pds": "hdf5", "hdf5": "root-events"}


# ---------------------------------------------------------------------------------------------------------------------
# Independent readers: {level: {(run, lumi): (events, {label: bytes or None})}}, lumi 0 for a run's


def _split(blob, sizes, labels):
    products, at = {}, 0
    for label, size in zip(labels, sizes):
        size = int(size)
        products[label] = None if size == NOT_PUT else bytes(blob[at:at + size])
        at += 0 if size == NOT_PUT else size
    assert at == len(blob)
    return products


def root_events_records(path):
    with uproot.open(path) as file:
        products = file["EventProducts"]
        records = {}
        for level, tree in (("lumi", "LuminosityBlocks"), ("run", "Runs")):
            labels = products[f"{level}Labels"].array().tolist()[0]
            branches = file[tree].arrays(library="np")
            lumis = branches["luminosityBlock"] if level == "lumi" else np.zeros(len(branches["run"]), dtype=int)
            records[level] = {
                (int(run), int(lumi)): (int(events), _split(np.asarray(blob, dtype=np.int8).tobytes(), sizes, labels))
                for run, lumi, events, blob, sizes in zip(branches["run"], lumis, branches["events"], branches["blob"],
                                                          branches["sizes"])}
            assert len(records[level]) == len(branches["run"]), "a number recorded twice"
    return records


def pds_records(path):
    blocks = []
    read_pds(path, blocks)
    assert all(block.checksum_ok for block in blocks)
    records = {"lumi": {}, "run": {}}
    for block in blocks:
        key = (block.run, block.luminosityBlock)
        assert key not in records[block.level], "a number recorded twice"
        records[block.level][key] = (block.events, block.products)
    return records


def hdf5_records(path):
    records = {}
    with h5py.File(path, "r") as file:
        for level, name in (("lumi", "luminosityBlocks"), ("run", "runs")):
            group = file[name]
            runs = group["run"][...]
            lumis = group["luminosityBlock"][...] if level == "lumi" else np.zeros(len(runs), dtype=int)
            products = {label: (g["values"][...].tobytes(), g["sizes"][...]) for label, g in group["products"].items()}
            at = {label: 0 for label in products}
            records[level] = {}
            for r, (run, lumi, events) in enumerate(zip(runs, lumis, group["events"][...])):
                found = {}
                for label, (values, sizes) in products.items():
                    size = int(sizes[r])
                    found[label] = None if size == NOT_PUT else values[at[label]:at[label] + size]
                    at[label] += 0 if size == NOT_PUT else size
                records[level][(int(run), int(lumi))] = (int(events), found)
            assert len(records[level]) == len(runs), "a number recorded twice"
    return records


RECORDS = {"root-events": root_events_records, "pds": pds_records, "hdf5": hdf5_records}


def event_ids(plugin, path):
    """(run, lumi, event) of every event the file holds."""
    if plugin == "root-events":
        with uproot.open(path) as file:
            tree = file["EventBlobs"]
            return [tuple(int(x) for x in id) for batch in zip(*(tree[b].array(library="np") for b in
                                                                 ("run", "luminosityBlock", "event")))
                    for id in zip(*batch)]
    if plugin == "pds":
        return [tuple(id) for record in read_pds(path)[1] for id in record.ids]
    with h5py.File(path, "r") as file:
        return [(int(i["run"]), int(i["luminosityBlock"]), int(i["event"])) for i in file["event_id"][...]]


# serialization=root: numbers big-endian, a vector as its int32 size and its elements.
def uint64(data):
    return struct.unpack(">Q", data)[0]


def doubles(data):
    (count,) = struct.unpack_from(">i", data)
    assert len(data) == 4 + 8 * count
    return list(struct.unpack_from(f">{count}d", data, 4))


def expected_records(ids):
    """What test-lumi-products records of the events `ids`: per lumi and run, (events, sum, sum of squares)."""
    expected = {"lumi": {}, "run": {}}
    for run, lumi, event in ids:
        for level, key in (("lumi", (run, lumi)), ("run", (run, 0))):
            events, total, squares = expected[level].get(key, (0, 0, 0))
            expected[level][key] = (events + 1, total + event, squares + event * event)
    return expected


def assert_records_of(records, ids):
    """`records` hold one record per lumi and run of the job, the empty lumis included, whose events and products
    are what the events `ids` of the file give (serialization=root)."""
    expected = expected_records(ids)
    assert len(records["lumi"]) == LUMIS and len(records["run"]) == RUNS
    assert sum(events == 0 for events, _ in records["lumi"].values()) == EMPTY_LUMIS
    for level, prefix in (("lumi", "lumi"), ("run", "run")):
        for key, (events, products) in records[level].items():
            count, total, squares = expected[level].get(key, (0, 0, 0))
            assert events == count, (level, key)
            assert uint64(products[f"{prefix}_events"]) == count, (level, key)
            assert doubles(products[f"{prefix}_numbers"]) == [total, squares], (level, key)
        if level == "lumi":
            assert all(products["lumi_track"] for _, products in records[level].values())


def write(tmp_path, plugin, name, *options, source=SOURCE, module="test-lumi-products", extra=(), threads=2):
    path = tmp_path / f"{name}.{EXTENSION[plugin]}"
    spec = ",".join([f"{plugin}:file={path}", *options])
    result = run_lanes("run", "-n", "0", "-t", str(threads), "--concurrent-lumis", "2", "--source", source,
                       *(["--module", module] if module else []), *extra, "--output", spec, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    return path


@pytest.mark.parametrize("plugin", FORMATS)
def test_records_round_trip(tmp_path, plugin):
    path = write(tmp_path, plugin, "original", "batch=3")
    records = RECORDS[plugin](path)
    assert_records_of(records, event_ids(plugin, path))
    copy_plugin = COPY[plugin]
    copy = tmp_path / f"copy.{EXTENSION[copy_plugin]}"
    read = run_lanes("run", "-n", "0", "-t", "2", "--source", f"{plugin}:file={path}",
                     "--output", f"{copy_plugin}:file={copy}", cwd=tmp_path, timeout=300)
    assert read.returncode == 0, read.stderr
    blocks = read.report["runs_and_lumis"]
    assert blocks["lumis"] - blocks["repeated_lumis"] == LUMIS and blocks["runs"] - blocks["repeated_runs"] == RUNS
    assert blocks["empty_lumis"] == EMPTY_LUMIS
    assert RECORDS[copy_plugin](copy) == records


@pytest.mark.parametrize("plugin", FORMATS)
def test_multi_process_merge_holds_each_record_once(tmp_path, plugin):
    """Two workers take chunks of 3 events in turn, so that lumis of 5 events are spread over both: the merged file
    holds each lumi and run once, its events and products merged."""
    spread = ("--processes", "2", "--distribution", "round-robin", "--chunk", "3")
    path = write(tmp_path, plugin, "merged", extra=spread)
    assert_records_of(RECORDS[plugin](path), event_ids(plugin, path))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("merged")) == [path.name]


def strip_records(plugin, path):
    """Rewrites the file as lanes wrote it before it kept records: a version 2 pds file, an HDF5 file without its
    record groups."""
    if plugin == "hdf5":
        with h5py.File(path, "r+") as file:
            del file["luminosityBlocks"], file["runs"]
        return
    data = path.read_bytes()
    header, records = read_pds(path)
    body = bytearray()
    for key in ("serialization", "compression", "compress"):
        body += struct.pack("<I", len(header[key])) + header[key].encode()
    body += struct.pack("<I", len(header["products"]))
    for label, type_name in header["products"]:
        body += struct.pack("<I", len(label)) + label.encode() + struct.pack("<I", len(type_name)) + type_name.encode()
    checksum = struct.pack("<Q", xxhash.xxh3_64_intdigest(bytes(body)))
    stripped = b"LANESPDS" + struct.pack("<II", 2, len(body)) + bytes(body) + checksum
    path.write_bytes(stripped + b"".join(data[r.offset:r.end] for r in records))


@pytest.mark.parametrize("plugin", ["pds", "hdf5"])
def test_a_file_without_records_reads_its_lumis_from_its_ids(tmp_path, plugin):
    # Written by one thread, in the source's order: at two, two lumis in flight may interleave in the file, and
    # its ids then hold more stretches than the source had lumis.
    path = write(tmp_path, plugin, "old", threads=1)
    strip_records(plugin, path)
    # a module that watches lumis: a job without one tracks none (docs/runs-and-lumis.md)
    read = run_lanes("run", "-n", "0", "-t", "1", "--source", f"{plugin}:file={path}", "--module", "lumi-work",
                     "--output", "dummy", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    blocks = read.report["runs_and_lumis"]
    assert (blocks["lumis"], blocks["runs"], blocks["empty_lumis"]) == (LUMIS - EMPTY_LUMIS, RUNS, 0)


@pytest.mark.parametrize("plugin", ["root-events", "hdf5"])
def test_a_file_with_records_is_read_ahead(tmp_path, plugin):
    """The copy of the source that reads the records reads the events' ids ahead too: fault at= an event number the
    file lacks is refused before the job, and one it holds strikes."""
    path = write(tmp_path, plugin, "ahead")
    for at, code in ((EVENTS + 1, 2), (EVENTS, 1)):
        result = run_lanes("run", "-n", "0", "--source", f"{plugin}:file={path}", "--module", f"fault:at={at}",
                           "--output", "dummy", cwd=tmp_path)
        assert result.returncode == code, result.stderr
        assert "module 'fault'" in result.stderr
    assert f"no event of this job is numbered {EVENTS + 1}" not in result.stderr


# ---------------------------------------------------------------------------------------------------------------------
# Problems, each one line


@pytest.mark.parametrize("plugin", FORMATS)
def test_a_product_no_format_can_store_is_refused(tmp_path, plugin):
    out = tmp_path / f"out.{EXTENSION[plugin]}"
    result = run_lanes("run", "-n", "10", "--source", "test-products", "--module",
                       "test-lumi-products:unstorable=true", "--output", f"{plugin}:file={out}", cwd=tmp_path)
    assert_clean_failure(result, f"{plugin}: lumi product 'lumi_opaque'", "has no ROOT dictionary", codes=(2,),
                         output=out)


def test_a_lumi_that_comes_back_cannot_merge_an_unmergeable_product(tmp_path):
    """The same file twice: its lumis come back, and lumi_name, put in each entry, cannot be merged."""
    path = write(tmp_path, "root-events", "twice", source="test-products:events=4,events-per-lumi=2", module=None)
    out = tmp_path / "out.pds"
    result = run_lanes("run", "-n", "0", "-t", "1", "--source", f"root-events:file={path},file={path}",
                       "--module", "test-lumi-products:unmergeable=true", "--output", f"pds:file={out}", cwd=tmp_path)
    assert_clean_failure(result, "(writeLumi, lumi 1:", "lumi product 'lumi_name' of lumi 1:", "comes twice",
                         "cannot be merged", codes=(1,), output=out)


def test_two_input_files_recording_a_lumi_merge_its_numbers_but_not_a_class(tmp_path):
    path = write(tmp_path, "root-events", "twice", source="test-products:events=4,events-per-lumi=2")
    result = run_lanes("run", "-n", "0", "-t", "1", "--source", f"root-events:file={path},file={path}",
                       "--output", "dummy", cwd=tmp_path)
    assert_clean_failure(result, str(path), "product 'lumi_track': an earlier input file records it too",
                         "cannot be merged", codes=(1,))


def test_two_processes_cannot_merge_an_unmergeable_product(tmp_path):
    """One lumi, its chunks of 3 events dealt to the two workers in turn: both put lumi_name."""
    out = tmp_path / "out.pds"
    result = run_lanes("run", "-n", "0", "--processes", "2", "--distribution", "round-robin", "--chunk", "3", "-t",
                       "1", "--source", "test-products:events=12", "--module", "test-lumi-products:unmergeable=true",
                       "--output", f"pds:file={out}", cwd=tmp_path, timeout=300)
    assert_clean_failure(result, "lumi product 'lumi_name' of lumi 1:1 comes twice", codes=(1,), output=out)


def test_damaged_records_are_named(tmp_path):
    """A flipped byte in a pds block record (its checksum), lumi sizes that do not add up in an HDF5 file, and a
    root-events file whose lumi tree is gone: each one line naming the file, before the job runs."""
    pds = write(tmp_path, "pds", "damaged")
    blocks = []
    read_pds(pds, blocks)
    data = bytearray(pds.read_bytes())
    data[-9] ^= 0xFF  # the last byte of the last run record's body
    pds.write_bytes(bytes(data))
    hdf5 = write(tmp_path, "hdf5", "damaged")
    with h5py.File(hdf5, "r+") as file:
        sizes = file["luminosityBlocks/products/lumi_events/sizes"]
        sizes[0] = sizes[0] + 1
    root = write(tmp_path, "root-events", "damaged")
    with uproot.update(root) as file:
        del file["LuminosityBlocks"]
    for plugin, path, fragment in (("pds", pds, "checksum mismatch"), ("hdf5", hdf5, "lumi records are malformed"),
                                   ("root-events", root, "has no tree LuminosityBlocks")):
        result = run_lanes("run", "-n", "0", "--source", f"{plugin}:file={path}", "--output", "dummy", cwd=tmp_path)
        assert_clean_failure(result, str(path), fragment)
