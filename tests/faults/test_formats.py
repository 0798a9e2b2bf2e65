"""Bad input for the root-events source: a truncated file, a file of another format, a plain TTree that is not
root-events, flipped bytes inside a blob (each compression, and with none: the frame's checksum catches them), every
byte of one frame, its header too, corrupt sizes, a damaged basket of the blob branch. Each gives one line naming the file (and the entry, for a damaged blob), a non-zero exit, no
crash. And the root-events output under a full disk and a Ctrl-C, and what unrolled serialisation refuses."""

import concurrent.futures
import shutil
import subprocess
import sys

import pytest
import uproot

from faults import (DATA, NANO_FILE, assert_clean_failure, assert_nothing_under, assert_one_line_error, interrupted_job,
                    run_limited)

HZZ_FILE = DATA / "uproot-HZZ-objects.root"


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
    """Where the bytes of entry `entry`'s blob lie in the file (ROOT does not compress the blob's branch, so its
    bytes are there as they are), found by its content: the first of its last two bytes, which lie in its last
    frame's payload, or its checksum, whatever the frames' sizes."""
    return blob_offset(path, entry) + len(blob_of(path, entry)) - 2


def blob_of(path, entry):
    with uproot.open(path) as file:
        return bytes(file["EventBlobs"]["blob"].array(library="np")[entry])


def blob_offset(path, entry):
    blob = blob_of(path, entry)
    data = path.read_bytes()
    at = data.find(blob)
    assert at >= 0 and data.find(blob, at + 1) < 0
    return at


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


def test_every_byte_of_a_frame_is_checked(tmp_path):
    """Each byte of one frame, header and payload, inverted in turn (a copy each): every copy fails with a checksum
    mismatch naming the entry. The frame: the first product's of entry 2 (compress=product, so the blob is the
    products' frames one after another), which the sizes branch bounds."""
    path = write_events(tmp_path, "lz4", "product")
    with uproot.open(path) as file:
        size = int(file["EventBlobs"]["sizes"].array(library="np")[2][0])
    at = blob_offset(path, 2)
    data = path.read_bytes()
    assert 17 < size < 64 and data[at] == 0x21  # a version 2 lz4 frame

    def read_copy(offset):
        directory = tmp_path / f"byte-{offset}"
        directory.mkdir()
        copy = directory / "events.root"
        damaged = bytearray(data)
        damaged[offset] ^= 0xFF
        copy.write_bytes(bytes(damaged))
        return copy, read_back(directory, copy)

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for copy, result in pool.map(read_copy, range(at, at + size)):
            assert_clean_failure(result, str(copy), "entry 2", "checksum mismatch", codes=(1,))


@pytest.mark.parametrize("batch", [1, 50])
def test_full_disk_while_writing_root_events(tmp_path, batch):
    """A file-size limit the file crosses while the job runs (batch=1) or when the last batch is filled
    (batch=50): one line naming the file and the cause, exit 1, nothing under the name."""
    spec = f"root-events:file=out.root,compression=none,batch={batch}"
    job = ["run", "-n", "400", "-t", "2", "--source", f"root:file={NANO_FILE},repeat=5", "--output", spec]
    full = run_limited(*job, cwd=tmp_path)
    assert full.returncode == 0, full.stderr
    size = (tmp_path / "out.root").stat().st_size
    (tmp_path / "out.root").unlink()
    result = run_limited(*job, cwd=tmp_path, file_size_limit=size - size // 10)
    assert_one_line_error(result, "'out.root'", "File too large", code=1)
    assert_nothing_under(tmp_path / "out.root")
    details = result.report["modules"][-1]["details"]
    assert details["failed"] is True and details["committed"] is False, details


REWRITE_SIZES = """
import sys
import ROOT
source = ROOT.TFile.Open(sys.argv[1])
blobs = source.Get("EventBlobs")
target = ROOT.TFile.Open(sys.argv[2], "RECREATE")
for kept in ("EventProducts", "LuminosityBlocks", "Runs"):
    source.Get(kept).CloneTree().Write()
copy = blobs.CloneTree(0)  # shares the source's branch addresses
for entry in range(blobs.GetEntries()):
    blobs.GetEntry(entry)
    if entry == 1:
        blobs.sizes[3] = 10**9
    copy.Fill()
copy.Write()
target.Close()
"""


def test_corrupt_sizes_are_named(tmp_path):
    """Product sizes that reach past an event's bytes (a file written by something else) are caught before any
    copy."""
    written = write_events(tmp_path, "none", "event")
    path = tmp_path / "corrupt.root"
    subprocess.run([sys.executable, "-c", REWRITE_SIZES, str(written), str(path)], check=True, timeout=120,
                   capture_output=True)
    assert_clean_failure(read_back(tmp_path, path), str(path), "entry 1", "corrupt sizes", codes=(1,))


def test_damaged_basket_of_the_blob_branch(tmp_path):
    """ROOT keeps the blob branch's baskets raw: 8 bytes inverted 37 bytes into one's record (of the damaged-file
    sweep, once a segmentation fault in TBasket::ReadBasketBuffers) are found by the basket check before ROOT reads
    the basket: one line naming the file, the entry and the branch."""
    written = tmp_path / "events.root"
    result = run_limited("run", "-n", "50", "-t", "1", "--source", f"root:file={NANO_FILE}", "--output",
                         f"root-events:file={written.name},compression=zstd,batch=10", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with uproot.open(written) as file:
        seeks = [int(seek) for seek in file["EventBlobs"]["blob"].member("fBasketSeek") if seek > 0]
    assert len(seeks) > 1
    for basket, seek in enumerate(seeks):
        data = bytearray(written.read_bytes())
        data[seek + 37:seek + 45] = bytes(b ^ 0xFF for b in data[seek + 37:seek + 45])
        path = tmp_path / f"basket-{basket}.root"
        path.write_bytes(bytes(data))
        result = run_limited("run", "-n", "0", "-t", "2", "--source", f"root-events:file={path}", "--output", "dummy",
                             cwd=tmp_path)
        assert result.returncode in (1, 2), (basket, result.returncode, result.stderr)
        [line] = [l for l in result.stderr.splitlines() if l.startswith("lanes: error: ")]
        assert str(path) in line and "branch 'blob'" in line, (basket, line)


def test_damaged_basket_of_the_product_list(tmp_path):
    """The product list's baskets are checked too before ROOT reads them (8 bytes inverted at offset 321 of the
    sweep's copy, in the basket of its 'labels' branch, made the job segfault as it opened the file)."""
    written = tmp_path / "events.root"
    result = run_limited("run", "-n", "50", "-t", "1", "--source", f"root:file={NANO_FILE}", "--output",
                         f"root-events:file={written.name},compression=zstd,batch=10", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with uproot.open(written) as file:
        seek = int(file["EventProducts"]["labels"].member("fBasketSeek")[0])
    data = bytearray(written.read_bytes())
    data[seek + 37:seek + 45] = bytes(b ^ 0xFF for b in data[seek + 37:seek + 45])
    path = tmp_path / "list.root"
    path.write_bytes(bytes(data))
    result = run_limited("run", "-n", "0", "--source", f"root-events:file={path}", "--output", "dummy", cwd=tmp_path)
    assert_one_line_error(result, "cannot read the product list of", str(path), "branch 'labels'", code=2)


def test_ctrl_c_closes_root_events_valid(tmp_path):
    """Ctrl-C in the middle of a job: the events in flight finish, the last partial batch is written, and the
    file reads back (check-products) with exactly the events the report counts."""
    path = tmp_path / "events.root"
    written = interrupted_job(tmp_path, f"root-events:file={path},compression=zstd,compress=both,batch=7")
    read = read_back(tmp_path, path)
    assert read.returncode == 0, read.stderr
    assert read.report["events"] == written


@pytest.mark.parametrize("branch,why", [("MET", "class 'TVector2' derives from TObject"),
                                        ("jetp4", "(emulated: no dictionary)")])
def test_unrolled_refuses_what_it_cannot_handle_before_the_job(tmp_path, branch, why):
    path = tmp_path / "events.root"
    result = run_limited("run", "-n", "0", "--source",
                         f"root:file={HZZ_FILE},tree=events,branches={branch}",
                         "--output", f"root-events:file={path},serialization=unrolled", cwd=tmp_path)
    assert_one_line_error(result, f"serialization=unrolled cannot handle product '{branch}'", why,
                          "use serialization=root", code=2)
    assert_nothing_under(path)
