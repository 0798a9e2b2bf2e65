"""Files of the formats' previous version still read: frames-v1/ holds test-products (4 events: floats, text,
tracks) as lanes wrote them before its codec frames' checksum covered their header (codec frame version 1, pds
format version 1, hdf5 lanes_version 1 without Fletcher32), made by main at 19be639:

    lanes run -n 0 -t 1 --source test-products:events=4 --output SPEC,keep=tracks,keep=text,keep=floats

with SPEC root-events:file=v1.root,compression=zstd,compress=both,batch=2 (a frame per product and per batch),
pds:file=v1.pds,compression=lz4,compress=both,batch=2, and for the gzipped HDF5 files (20 kB each unzipped)
hdf5:file=v1-product.h5,layout=blobs,compression=zstd,compress=product and
hdf5:file=v1-batch.h5,layout=blobs,compression=lz4,compress=batch,batch=2. Each is read back into check-products,
which recomputes every value; and a damaged byte in a version 1 frame's payload is still a checksum error."""

import gzip
import shutil
from pathlib import Path

import pytest
import uproot

from conftest import run_lanes
from pdsfile import read_pds
from rootio import output_details

FIXTURES = Path(__file__).resolve().parent / "frames-v1"
FILES = {"root-events": "v1.root", "pds": "v1.pds", "hdf5-product": "v1-product.h5.gz", "hdf5-batch": "v1-batch.h5.gz"}


def fixture(name, tmp_path):
    """The fixture file of `name`, unzipped into tmp_path."""
    source = FIXTURES / FILES[name]
    path = tmp_path / source.name.removesuffix(".gz")
    with (gzip.open(source) if source.suffix == ".gz" else open(source, "rb")) as data, open(path, "wb") as copy:
        shutil.copyfileobj(data, copy)
    return path


def read_back(path, tmp_path, name):
    # lumi-work watches lumis: a job without a module that does tracks none (docs/runs-and-lumis.md)
    plugin = "hdf5" if name.startswith("hdf5") else name
    return run_lanes("run", "-n", "0", "-t", "2", "--source", f"{plugin}:file={path}", "--module", "lumi-work",
                     "--output", "check-products", cwd=tmp_path)


@pytest.mark.parametrize("name", FILES)
def test_version_1_files_read(tmp_path, name):
    """...with their lumis from the events' ids alone: they keep no run or lumi records."""
    result = read_back(fixture(name, tmp_path), tmp_path, name)
    assert result.returncode == 0, result.stderr
    assert output_details(result.report, "check-products") == {"events_checked": 4, "products_checked": 3}
    blocks = result.report["runs_and_lumis"]
    assert (blocks["runs"], blocks["lumis"], blocks["empty_lumis"]) == (1, 1, 0)


def test_version_1_pds_reads_independently(tmp_path):
    header, records = read_pds(fixture("pds", tmp_path))
    assert header["version"] == 1 and len(records) == 2
    assert all(r.checksum_ok and r.sizes_frame.version == 1 and r.sizes_frame.checksum_ok for r in records)


def test_damaged_version_1_frame_is_a_checksum_error(tmp_path):
    """The last byte of the first batch's blob in v1.root (ROOT stores the blob uncompressed): a zstd frame's
    payload."""
    path = fixture("root-events", tmp_path)
    with uproot.open(path) as file:
        blob = bytes(file["EventBlobs"]["blob"].array(library="np")[0])
    data = bytearray(path.read_bytes())
    at = data.find(blob)
    assert at >= 0 and blob[0] == 2  # a version 1 zstd frame
    data[at + len(blob) - 1] ^= 0xFF
    path.write_bytes(bytes(data))
    result = read_back(path, tmp_path, "root-events")
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanes: error: ") and "checksum mismatch" in lines[0], lines
