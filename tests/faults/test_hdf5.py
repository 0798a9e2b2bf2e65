"""Bad input for the hdf5 source and a full disk under the hdf5 output: truncated files, files of another format,
files with a wrong layout or a dataset missing, offsets that point outside their values, blobs that do not hold
their product. Each fails in one line naming the file (and the product where it applies), with the right exit
status, no crash and no hang, and no output left behind."""

import shutil

import h5py
import numpy as np
import pytest

from faults import NANO_FILE, assert_nothing_under, assert_one_line_error, run_limited

KEEP = "keep=nMuon,keep=Muon_pt,keep=Muon_charge,keep=MET_pt"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """written(layout): a small hdf5 file (a few NanoAOD products), written once per layout; copy before changing."""
    files = {}

    def write(layout):
        if layout not in files:
            directory = tmp_path_factory.mktemp(layout)
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


def read(path, tmp_path):
    """A job reading `path` with the hdf5 source into a root file; the Result."""
    return run_limited("run", "--source", f"hdf5:file={path}", "-n", "0", "-t", "2",
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
        # A float stored in 3 bytes: event 10's blob ends one byte early, and every later one starts early.
        offsets = file["products/MET_pt/offsets"]
        offsets[10] = offsets[10] - 1
    result = read(path, tmp_path)
    assert_one_line_error(result, "bad.h5", "product 'MET_pt'", "3 bytes cannot hold a float", code=1)
    assert_nothing_under(tmp_path / "out.root")


@pytest.mark.parametrize("layout", ["columns", "blobs"])
def test_full_disk_under_the_output(tmp_path, layout):
    out = tmp_path / "out.h5"
    result = run_limited("run", "--source", f"root:file={NANO_FILE}", "-n", "0", "--output",
                         f"hdf5:file={out},layout={layout},batch=20", cwd=tmp_path, file_size_limit=300_000)
    assert_one_line_error(result, "out.h5", "File too large", code=1)
    assert_nothing_under(out)
