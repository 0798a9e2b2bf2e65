"""Bad input for the root-events source: a truncated file, a file of another format, a plain TTree that is not
root-events, flipped bytes inside a blob (each compression, and with none: the frame's checksum catches them).
Each gives one line naming the file (and the entry, for a damaged blob), a non-zero exit, no crash."""

import shutil

import pytest
import uproot

from faults import NANO_FILE, assert_clean_failure, run_limited


def write_events(directory, compression="lz4", compress="event"):
    path = directory / "events.root"
    result = run_limited("run", "-n", "0", "--source", "test-products:events=20", "--output",
                         f"root-events:file={path},compression={compression},compress={compress},batch=5",
                         cwd=directory)
    assert result.returncode == 0, result.stderr
    return path


def read_back(directory, path):
    return run_limited("run", "-n", "0", "-t", "2", "--source", f"root-events:file={path}", "--output",
                       "check-products", cwd=directory)


def blob_position(path, entry):
    """Where the bytes of entry `entry`'s blob lie in the file (the file is not compressed by ROOT, so the blob's
    bytes are there as they are): the middle of the blob, found by its content."""
    with uproot.open(path) as file:
        blob = bytes(file["EventBlobs"]["blob"].array(library="np")[entry])
    data = path.read_bytes()
    at = data.find(blob)
    assert at >= 0 and data.find(blob, at + 1) < 0
    return at + len(blob) // 2


def test_truncated_file(tmp_path):
    path = write_events(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert_clean_failure(read_back(tmp_path, path), str(path))


def test_file_of_another_format(tmp_path):
    path = tmp_path / "events.root"
    path.write_text("run,luminosityBlock,event\n1,1,1\n")
    assert_clean_failure(read_back(tmp_path, path), str(path), codes=(2,))


def test_plain_tree_that_is_not_root_events(tmp_path):
    path = tmp_path / "nano.root"
    shutil.copy(NANO_FILE, path)
    assert_clean_failure(read_back(tmp_path, path), str(path), "is not a root-events file", codes=(2,))


@pytest.mark.parametrize("compression,compress", [("none", "event"), ("lz4", "product"), ("zstd", "batch"),
                                                  ("lz4", "both")])
def test_flipped_bytes_inside_a_blob(tmp_path, compression, compress):
    path = write_events(tmp_path, compression, compress)
    at = blob_position(path, 2)
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    data[at + 1] ^= 0x5A
    path.write_bytes(bytes(data))
    assert_clean_failure(read_back(tmp_path, path), str(path), "entry 2", "checksum mismatch", codes=(1,))
