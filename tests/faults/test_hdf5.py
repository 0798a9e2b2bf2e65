"""Bad input for the hdf5 source and a full disk under the hdf5 output: truncated files, files of another format,
files with a wrong layout, another version or a dataset missing, offsets that point outside their values, blobs
that do not hold their product, flipped bytes in a compressed blob and in a chunk (Fletcher32), damaged metadata,
and in a list of files one that is missing, truncated, of another format or holding other products (refused, or
left out with skip-bad-files=true). Each fails in one line
naming the file (and the product where it applies), with the right exit status, no crash and no hang, and no
output left behind."""

import shutil

import h5py
import numpy as np
import pytest

from faults import NANO_FILE, assert_nothing_under, assert_one_line_error, run_limited

KEEP = "keep=nMuon,keep=Muon_pt,keep=Muon_charge,keep=MET_pt"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """written(layout): a small hdf5 file (a few NanoAOD products), written once per layout (options may follow
    the layout: "blobs,compression=lz4"); copy before changing."""
    files = {}

    def write(layout):
        if layout not in files:
            directory = tmp_path_factory.mktemp(layout.replace(",", "-").replace("=", "-"))
            path = directory / "good.h5"
            result = run_limited("run", "--source", f"root:file={NANO_FILE}", "-n", "0", "--output",
                                 f"hdf5:file={path},layout={layout},{KEEP}", cwd=directory)
            assert result.returncode == 0, result.stderr
            files[layout] = path
        return files[layout]

    return write


def copy(source, tmp_path, name="bad.h5"):
    path = tmp_path / name
    shutil.copyfile(source, path)
    return path


def read(path, tmp_path, *more, options=""):
    """A job reading `path` (and the files `more`) with the hdf5 source into a root file; the Result."""
    files = ",".join(f"file={p}" for p in (path, *more))
    return run_limited("run", "--source", f"hdf5:{files}{options}", "-n", "0", "-t", "2",
                       "--output", f"root:file={tmp_path / 'out.root'}", cwd=tmp_path, timeout=60)


@pytest.mark.parametrize("keep", [1000, 0.5], ids=["header", "half"])
def test_truncated_file(written, tmp_path, keep):
    data = written("columns").read_bytes()
    path = tmp_path / "bad.h5"
    path.write_bytes(data[:keep if isinstance(keep, int) else int(len(data) * keep)])
    result = read(path, tmp_path)
    assert_one_line_error(result, "bad.h5", "truncated file", code=2)
    assert_nothing_under(tmp_path / "out.root")


@pytest.mark.parametrize("make", ["root", "empty", "text"])
def test_file_of_another_format(tmp_path, make):
    path = tmp_path / "bad.h5"
    if make == "root":
        shutil.copyfile(NANO_FILE, path)
    else:
        path.write_bytes(b"" if make == "empty" else b"run,event\n1,1\n" * 100)
    result = read(path, tmp_path)
    assert_one_line_error(result, "bad.h5", "not an HDF5 file", code=2)


def test_hdf5_file_of_someone_else(tmp_path):
    path = tmp_path / "bad.h5"
    with h5py.File(path, "w") as file:
        file["x"] = np.arange(10)
    assert_one_line_error(read(path, tmp_path), "bad.h5", "no lanes_layout attribute", code=2)


@pytest.mark.parametrize("layout", ["rows", "blobs-in-columns"])
def test_wrong_layout(written, tmp_path, layout):
    if layout == "rows":
        path = copy(written("columns"), tmp_path)
        with h5py.File(path, "r+") as file:
            file.attrs["lanes_layout"] = "rows"
        assert_one_line_error(read(path, tmp_path), "bad.h5", "unknown layout 'rows'", code=2)
    else:
        path = copy(written("columns"), tmp_path)  # numeric kinds claimed by a blobs file
        with h5py.File(path, "r+") as file:
            file.attrs["lanes_layout"] = "blobs"
        assert_one_line_error(read(path, tmp_path), "bad.h5", "kind 'scalar'", "blobs", code=2)


@pytest.mark.parametrize("dataset", ["event_id", "products/Muon_pt/offsets", "products/MET_pt/values", "products"])
def test_missing_dataset(written, tmp_path, dataset):
    path = copy(written("columns"), tmp_path)
    with h5py.File(path, "r+") as file:
        del file[dataset]
    assert_one_line_error(read(path, tmp_path), "bad.h5", f"no {'group' if dataset == 'products' else 'dataset'} "
                          f"'{dataset.split('/')[-1]}'", code=2)
    assert_nothing_under(tmp_path / "out.root")


def test_values_shorter_than_the_events(written, tmp_path):
    path = copy(written("columns"), tmp_path)
    with h5py.File(path, "r+") as file:
        values = file["products/MET_pt/values"][...]
        del file["products/MET_pt/values"]
        file["products/MET_pt/values"] = values[:-3]
    assert_one_line_error(read(path, tmp_path), "bad.h5", "product 'MET_pt'", "197 values for 200 events", code=2)


@pytest.mark.parametrize("layout", ["columns", "blobs"])
def test_offsets_out_of_order(written, tmp_path, layout):
    path = copy(written(layout), tmp_path)
    with h5py.File(path, "r+") as file:
        offsets = file["products/Muon_pt/offsets"]
        offsets[150] = offsets[-1] + 1000
    result = read(path, tmp_path)
    assert_one_line_error(result, "bad.h5", "product 'Muon_pt'", "offsets out of order or beyond", code=1)
    assert_nothing_under(tmp_path / "out.root")


def test_blob_that_does_not_hold_its_product(written, tmp_path):
    path = copy(written("blobs"), tmp_path)
    with h5py.File(path, "r+") as file:
        # Event 10's blob ends one byte early (a float in 3 bytes) and event 11's starts one byte early (in 5):
        # whichever of the two lanes reads first names its event.
        offsets = file["products/MET_pt/offsets"]
        offsets[10] = offsets[10] - 1
    result = read(path, tmp_path)
    assert_one_line_error(result, "bad.h5", "product 'MET_pt'", "bytes cannot hold a float", code=1)
    assert "of event 10: 3 bytes" in result.stderr or "of event 11: 5 bytes" in result.stderr, result.stderr
    assert_nothing_under(tmp_path / "out.root")


@pytest.mark.parametrize("layout", ["columns", "blobs"])
def test_full_disk_under_the_output(tmp_path, layout):
    out = tmp_path / "out.h5"
    result = run_limited("run", "--source", f"root:file={NANO_FILE}", "-n", "0", "--output",
                         f"hdf5:file={out},layout={layout},batch=20", cwd=tmp_path, file_size_limit=300_000)
    assert_one_line_error(result, "out.h5", "File too large", code=1)
    assert_nothing_under(out)


@pytest.mark.parametrize("compression,compress", [("lz4", "product"), ("zstd", "batch")])
def test_flipped_bytes_in_a_compressed_blob(written, tmp_path, compression, compress):
    """A compressed blob (or batch of blobs) is a frame whose checksum catches the flip (an uncompressed blob has no
    frame: see the blob that does not hold its product, above)."""
    path = copy(written(f"blobs,compression={compression},compress={compress},batch=40"), tmp_path)
    with h5py.File(path, "r+") as file:
        values = file["products/Muon_pt/values"]
        frame_ends = file["products/Muon_pt/" + ("frames" if compress == "batch" else "offsets")][...]
        ends = np.concatenate(([0], frame_ends)).astype(np.int64)
        event = int(np.argmax(np.diff(ends)))  # the largest frame
        at = (ends[event] + 17 + ends[event + 1]) // 2  # in its payload, past the 17-byte header
        values[at] = values[at] ^ 0xFF
    result = read(path, tmp_path)
    assert_one_line_error(result, "bad.h5", "product 'Muon_pt'", "checksum mismatch", code=1)
    assert_nothing_under(tmp_path / "out.root")


@pytest.mark.parametrize("layout", ["columns", "blobs"])
def test_flipped_bytes_inside_a_chunk(written, tmp_path, layout):
    """Every dataset lanes writes is chunked with HDF5's Fletcher32 filter: a byte changed inside a column's chunk
    (or an uncompressed blob's, which has no frame) fails the read in lanes (one line naming the dataset, exit 1)
    and in h5py. (A byte, not a 16-bit word inverted: Fletcher32's sums are modulo 65535, where a word 0x0000 and
    0xFFFF are one; docs/faults.md has what that leaves unseen.)"""
    path = copy(written(layout), tmp_path)
    dataset = "products/Muon_pt/values"
    with h5py.File(path, "r") as file:
        assert file[dataset].fletcher32
        chunk = file[dataset].id.get_chunk_info(0)
    data = bytearray(path.read_bytes())
    data[chunk.byte_offset + 5] ^= 0x5A
    path.write_bytes(bytes(data))
    result = read(path, tmp_path)
    assert_one_line_error(result, "bad.h5", f"dataset '/{dataset}'", "Fletcher32 checksum", code=1)
    assert_nothing_under(tmp_path / "out.root")
    with h5py.File(path, "r") as file, pytest.raises(OSError, match="filter returned failure during read"):
        file[dataset][...]


def test_damaged_metadata(written, tmp_path):
    """The file's metadata is checksummed too (HDF5's 1.10 format): a product group's object header, found by its
    address, with a byte inverted, is an error naming the file and product, not a crash."""
    path = copy(written("columns"), tmp_path)
    with h5py.File(path, "r") as file:
        address = h5py.h5o.get_info(file["products/MET_pt"].id).addr
    data = bytearray(path.read_bytes())
    assert data[address:address + 4] == b"OHDR"  # a version 2 object header
    data[address + 6] ^= 0xFF
    path.write_bytes(bytes(data))
    assert_one_line_error(read(path, tmp_path), "bad.h5", "product 'MET_pt'", "incorrect metadata checksum", code=2)


def test_damaged_list_of_products(tmp_path):
    """A file of all NanoAOD's products keeps their links in a fractal heap indexed by creation order: 64 bytes
    zeroed over one of its blocks (found by its signature, "FHDB") are an error naming the file, not the abort
    inside HDF5 that listing the damaged group by name again would give (it frees its table of links twice)."""
    path = tmp_path / "all.h5"
    result = run_limited("run", "--source", f"root:file={NANO_FILE}", "-n", "50", "-t", "1", "--output",
                         f"hdf5:file={path},layout=blobs,compression=zstd", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = bytearray(path.read_bytes())
    block = data.rfind(b"FHDB")
    assert block > 0, "the products' links are not in a fractal heap"
    data[block - 13:block + 51] = bytes(64)
    path.write_bytes(bytes(data))
    assert_one_line_error(read(path, tmp_path), "all.h5", "incorrect metadata checksum", code=2)
    assert_nothing_under(tmp_path / "out.root")


@pytest.mark.parametrize("version", [0, 3, None])
def test_other_version(written, tmp_path, version):
    path = copy(written("columns"), tmp_path)
    with h5py.File(path, "r+") as file:
        if version is None:
            del file.attrs["lanes_version"]
        else:
            file.attrs["lanes_version"] = np.int32(version)
    fragment = "no lanes_version" if version is None else f"lanes_version {version}"
    assert_one_line_error(read(path, tmp_path), "bad.h5", fragment, "reads versions 1 to 2", code=2)


@pytest.mark.parametrize("problem", ["missing", "truncated", "root", "other-products"])
def test_bad_second_file(written, tmp_path, problem):
    """A list of files whose second cannot be read, or holds other products than the first: refused before the
    job runs, naming it."""
    good = written("blobs,compression=lz4,compress=product")
    second = tmp_path / "second.h5"
    fragment = {"missing": "does not exist", "truncated": "truncated file", "root": "not an HDF5 file",
                "other-products": "holds other products than the first input file"}[problem]
    if problem == "truncated":
        second.write_bytes(good.read_bytes()[:5000])
    elif problem == "root":
        shutil.copyfile(NANO_FILE, second)
    elif problem == "other-products":
        written_second = run_limited("run", "--source", f"root:file={NANO_FILE}", "-n", "0", "--output",
                                     f"hdf5:file={second},layout=blobs,keep=MET_pt", cwd=tmp_path)
        assert written_second.returncode == 0, written_second.stderr
    result = read(good, tmp_path, second)
    assert_one_line_error(result, str(second), fragment, code=2)
    assert_nothing_under(tmp_path / "out.root")


def test_skip_bad_files_leaves_out_the_bad_ones(written, tmp_path):
    """skip-bad-files=true: the missing and the truncated file are named in a warning and in the report, and the
    job reads every event of the two good files."""
    good = written("blobs,compression=zstd")
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(good.read_bytes()[:3000])
    missing = tmp_path / "missing.h5"
    result = read(missing, tmp_path, good, truncated, good, options=",skip-bad-files=true")
    assert result.returncode == 0, result.stderr
    warnings = result.stderr.strip().splitlines()
    assert len(warnings) == 2 and all(line.startswith("lanes: warning: skipped '") for line in warnings), warnings
    skipped = result.report["source"]["skipped_files"]
    assert [entry["file"] for entry in skipped] == [str(missing), str(truncated)]
    with h5py.File(good, "r") as file:
        events = len(file["event_id"])
    assert result.report["events"] == 2 * events


def test_skip_bad_files_with_no_good_file(tmp_path):
    result = read(tmp_path / "a.h5", tmp_path, tmp_path / "b.h5", options=",skip-bad-files=true")
    assert_one_line_error(result, "none of the 2 input files can be read", code=2)


@pytest.mark.parametrize("dataset", ["batch_ends", "products/Muon_pt/frames"])
def test_batch_compressed_file_missing_its_frames(written, tmp_path, dataset):
    path = copy(written("blobs,compression=zstd"), tmp_path)
    with h5py.File(path, "r+") as file:
        del file[dataset]
    assert_one_line_error(read(path, tmp_path), "bad.h5", f"no dataset '{dataset.split('/')[-1]}'", code=2)
    assert_nothing_under(tmp_path / "out.root")
