"""Bad input for the pds source: an empty file, a file of another format, a ROOT file, a wrong version, a damaged
header, a truncated file, flipped bytes inside a record (each compression, and with none: the record's checksum
catches them). Each gives one line naming the file (and the record, for a damaged record) and a non-zero exit, no
crash. And the pds output under a full disk (at the start, while the job runs, at the close) and a Ctrl-C."""

import struct
import sys
from pathlib import Path

import pytest

from faults import (NANO_FILE, assert_clean_failure, assert_nothing_under, assert_one_line_error, interrupted_job,
                    run_limited)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "root"))
from pdsfile import pds_events, read_pds  # noqa: E402


def write_pds(directory, compression="lz4", compress="event"):
    path = directory / "events.pds"
    result = run_limited("run", "-n", "0", "--source", "test-products:events=20", "--output",
                         f"pds:file={path},compression={compression},compress={compress},batch=5", cwd=directory)
    assert result.returncode == 0, result.stderr
    return path


def read_back(directory, path, handles="shared"):
    return run_limited("run", "-n", "0", "-t", "2", "--source", f"pds:file={path},handles={handles}", "--output",
                       "check-products", cwd=directory)


def rewrite(path, change):
    data = bytearray(path.read_bytes())
    change(data)
    path.write_bytes(bytes(data))


def test_empty_file(tmp_path):
    path = tmp_path / "events.pds"
    path.write_bytes(b"")
    assert_one_line_error(read_back(tmp_path, path), str(path), "is empty", code=2)


def test_file_of_another_format(tmp_path):
    path = tmp_path / "events.pds"
    path.write_text("run,luminosityBlock,event\n1,1,1\n")
    assert_one_line_error(read_back(tmp_path, path), str(path), "not a pds file", code=2)


def test_root_file(tmp_path):
    assert_one_line_error(read_back(tmp_path, NANO_FILE), str(NANO_FILE), "not a pds file", code=2)


@pytest.mark.parametrize("version", [0, 7])
def test_wrong_version(tmp_path, version):
    path = write_pds(tmp_path)
    rewrite(path, lambda data: struct.pack_into("<I", data, 8, version))
    assert_one_line_error(read_back(tmp_path, path), str(path), f"pds format version {version}",
                          "reads versions 1 to 3", code=2)


def test_damaged_header(tmp_path):
    """A flipped byte in a product's label: the header's checksum catches it."""
    path = write_pds(tmp_path)
    at = path.read_bytes().index(b"floats")
    rewrite(path, lambda data: data.__setitem__(at, data[at] ^ 0x20))
    assert_one_line_error(read_back(tmp_path, path), str(path), "header is damaged (checksum mismatch)", code=2)


@pytest.mark.parametrize("keep", ["half", "all but one byte"])
def test_truncated_file(tmp_path, keep):
    path = write_pds(tmp_path)
    size = path.stat().st_size
    rewrite(path, lambda data: data.__delitem__(slice(size // 2 if keep == "half" else size - 1, None)))
    assert_one_line_error(read_back(tmp_path, path), str(path), "is truncated", code=2)


@pytest.mark.parametrize("compression,compress,handles", [("none", "event", "shared"), ("lz4", "product", "lane"),
                                                          ("zstd", "batch", "shared"), ("lz4", "both", "lane")])
def test_flipped_bytes_inside_a_record(tmp_path, compression, compress, handles):
    path = write_pds(tmp_path, compression, compress)
    record = read_pds(path)[1][2]
    at = record.body + record.length // 2

    def flip(data):
        data[at] ^= 0xFF
        data[at + 1] ^= 0x5A
    rewrite(path, flip)
    assert not read_pds(path)[1][2].checksum_ok
    assert_clean_failure(read_back(tmp_path, path, handles), str(path), "record 2: checksum mismatch", codes=(1,))


def test_flipped_byte_in_the_events_of_a_record(tmp_path):
    """An event count that no longer matches the record's place: caught by the checksum, as the rest."""
    path = write_pds(tmp_path)
    record = read_pds(path)[1][1]
    rewrite(path, lambda data: data.__setitem__(record.body + 20, data[record.body + 20] ^ 0x01))
    assert_clean_failure(read_back(tmp_path, path), str(path), "record 1: checksum mismatch", codes=(1,))


def test_event_count_beyond_the_record(tmp_path):
    """A record whose event count cannot fit its length (its ids would reach past it): named before the job,
    without allocating for a billion events."""
    path = write_pds(tmp_path)
    record = read_pds(path)[1][1]
    rewrite(path, lambda data: struct.pack_into("<I", data, record.body, 1 << 30))
    assert_one_line_error(read_back(tmp_path, path), str(path), "record 1 is damaged", code=2)


JOB = ["run", "-n", "400", "-t", "2", "--source", f"root:file={NANO_FILE},repeat=5"]


@pytest.mark.parametrize("when", ["start", "while running", "at close"])
def test_full_disk(tmp_path, when):
    """A file-size limit the job's claim on the file crosses (start: exit 2, before any event), or the file while
    the job runs (batch=1) or when the last record is written (batch=1000): one line naming the file and the cause,
    exit 1; nothing under the name."""
    batch = 1 if when == "while running" else 1000
    job = [*JOB, "--output", f"pds:file=out.pds,compression=none,batch={batch}"]
    full = run_limited(*job, cwd=tmp_path)
    assert full.returncode == 0, full.stderr
    size = (tmp_path / "out.pds").stat().st_size
    (tmp_path / "out.pds").unlink()
    limit = 16 if when == "start" else size - size // 10
    result = run_limited(*job, cwd=tmp_path, file_size_limit=limit)
    if when == "start":  # 16 bytes leave no room for the claim on out.pds: the job is refused before any event
        assert_one_line_error(result, "cannot claim output 'pds' (file=out.pds)", "File too large", code=2)
    else:
        assert_one_line_error(result, "'out.pds'", "File too large", code=1)
    assert_nothing_under(tmp_path / "out.pds")
    if when != "start":  # a 16-byte limit leaves no room for the report either
        details = result.report["modules"][-1]["details"]
        assert details["failed"] is True and details["committed"] is False, details


def test_full_disk_while_merging_parts(tmp_path):
    """The parent's merge of a multi-process job's parts fails on a full disk: one line, no file, no parts.
    (Round-robin: the shared event queue is a file that a file-size limit would refuse.)"""
    job = ["run", "--processes", "2", "--distribution", "round-robin", "-t", "1", "-n", "300",
           "--source", f"root:file={NANO_FILE},repeat=5", "--output", "pds:file=out.pds,compression=none,batch=20"]
    full = run_limited(*job, cwd=tmp_path, timeout=300)
    assert full.returncode == 0, full.stderr
    size = (tmp_path / "out.pds").stat().st_size
    (tmp_path / "out.pds").unlink()
    result = run_limited(*job, cwd=tmp_path, file_size_limit=size - size // 4, timeout=300)
    assert_one_line_error(result, "out.pds", "File too large", code=1)
    assert_nothing_under(tmp_path / "out.pds")


def test_ctrl_c_closes_pds_valid(tmp_path):
    """Ctrl-C in the middle of a job: the events in flight finish, the last partial record is written, and the
    file reads back (check-products) with exactly the events the report counts."""
    path = tmp_path / "events.pds"
    written = interrupted_job(tmp_path, f"pds:file={path},compression=zstd,compress=both,batch=7")
    assert len(pds_events(path)) == written
    read = read_back(tmp_path, path)
    assert read.returncode == 0, read.stderr
    assert read.report["events"] == written
