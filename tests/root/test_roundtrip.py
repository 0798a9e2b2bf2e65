"""Every input file through every file output: uproot, an independent reader, reads the input and the written
file, and every value of every product of every event (matched by id) must be equal. Then lanes reads what it
wrote, and one job writes several outputs at once."""

import pytest
import uproot

from conftest import run_lanes
from rootio import (HZZ, INPUTS, MUONS, NANO, OUTPUTS, assert_clean_failure, assert_same_events, output_details,
                    output_spec, read_events, read_input, source_spec, stores)


def cases(storable_only=False):
    """(input, output kind) pairs; the pairs where RNTuple cannot store a product are in only if not
    `storable_only`."""
    return [pytest.param(input, kind, id=f"{input.name}-{kind}")
            for input in INPUTS for kind in OUTPUTS if stores(input, kind) or not storable_only]


def plugin_of(output_kind):
    return OUTPUTS[output_kind].split(":")[0]


@pytest.fixture(scope="session")
def dictionaries(tmp_path_factory):
    """Where lanes builds and caches the dictionaries it lacks (once for the whole session)."""
    return tmp_path_factory.mktemp("dictionaries")


@pytest.fixture(scope="module")
def written(tmp_path_factory, dictionaries):
    """write(input, output_kind) runs, once per module, the job writing the whole input with that output, and
    returns (Result, path of the written file)."""
    jobs = {}

    def write(input, kind):
        if (input, kind) not in jobs:
            directory = tmp_path_factory.mktemp(f"{input.name}-{kind}")
            path = directory / "out.root"
            result = run_lanes("run", "--source", input.spec(dictionaries), "--output", output_spec(kind, path),
                               "-n", "0", "-t", "2", cwd=directory, timeout=300)
            jobs[(input, kind)] = (result, path)
        return jobs[(input, kind)]

    return write


@pytest.mark.parametrize("input, kind", cases())
def test_round_trip(written, input, kind):
    result, path = written(input, kind)
    if not stores(input, kind):
        # RNTuple cannot store some classes at all: the job must say which product, and write nothing.
        assert_clean_failure(result, output=path)
        assert any(f"product '{product}'" in result.stderr for product in input.rntuple_unstorable), result.stderr
        return
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == input.events
    details = output_details(result.report, plugin_of(kind))
    assert details["committed"] is True
    assert details["events_written"] == input.events
    expected = read_input(input)
    assert len(expected) == input.events
    output = read_events(path)
    assert_same_events(output, expected)


@pytest.mark.parametrize("input, kind", cases(storable_only=True))
def test_lanes_reads_what_it_writes(written, dictionaries, input, kind):
    """The written file as a lanes source, written again by a `root` output, equals the original input."""
    result, path = written(input, kind)
    assert result.returncode == 0, result.stderr
    again = path.with_name("again.root")
    source = source_spec("rntuple" if kind.startswith("rntuple") else "root", path,
                         dictionaries=dictionaries if input.needs_dictionaries else None)
    result = run_lanes("run", "--source", source, "--output", f"root:file={again}", "-n", "0", "-t", "2",
                       cwd=path.parent, timeout=300)
    assert result.returncode == 0, result.stderr
    assert output_details(result.report, "root")["events_written"] == input.events
    assert_same_events(read_events(again), read_input(input))


@pytest.mark.parametrize("input", [NANO, MUONS], ids=lambda i: i.name)
def test_one_job_writes_several_outputs(tmp_path, lanes, input):
    files = {"root": tmp_path / "tree.root", "rntuple": tmp_path / "ntuple.root",
             "parallel-root": tmp_path / "merged.root"}
    result = lanes("run", "--source", input.spec(), "-n", "0", "-t", "2",
                   *[arg for kind, path in files.items() for arg in ("--output", output_spec(kind, path))])
    assert result.returncode == 0, result.stderr
    expected = read_input(input)
    for label, path in files.items():
        details = output_details(result.report, label)
        assert (details["committed"], details["events_written"]) == (True, input.events), label
        assert_same_events(read_events(path), expected)


@pytest.mark.parametrize("processes", [[], ["--processes", 2]], ids=["single", "merged"])
@pytest.mark.parametrize("kind", list(OUTPUTS))
def test_an_output_without_an_event_holds_its_empty_dataset(tmp_path, lanes, kind, processes):
    """A job whose only event fails (and is skipped) writes a file that a reader opens as it opens any: the tree or
    RNTuple is there with every product, and no entry, beside its runs and lumis. (parallel-root wrote no tree at all, and merging the empty
    parts of rntuple-parallel made ROOT abort.)"""
    out = tmp_path / "out.root"
    expected = read_input(NANO)
    _, _, first = expected.ids[0]
    result = lanes("run", "--source", NANO.spec(), "-n", 1, "-t", 2, *processes,
                   "--module", f"fault:at={first},action=throw", "--on-error", "skip", "--output", output_spec(kind, out))
    assert result.returncode == 0 and result.report["events"] == 0, result.stderr
    with uproot.open(out) as file:
        dataset = file["Events"]
        assert dataset.num_entries == 0
        assert set(expected.products) <= set(dataset.keys())
        # Its one lumi and run still have a row each, of no event written (merged: read from the part that
        # became the file).
        for name in ("LuminosityBlocks", "Runs"):
            assert file[name].arrays(["events"], library="np")["events"].tolist() == [0], name


@pytest.mark.parametrize("kind", ["rntuple", "rntuple-parallel"])
def test_rntuple_writes_what_it_can_store(tmp_path, lanes, kind):
    """Keeping only the products RNTuple can store (vectors of float, int and bool, scalars) writes them exactly."""
    expected = read_input(HZZ)
    storable = [p for p in expected.products if p not in HZZ.rntuple_unstorable]
    out = tmp_path / "out.root"
    keep = ",".join(f"keep={p}" for p in storable)
    result = lanes("run", "--source", HZZ.spec(), "-n", "0", "-t", "2", "--output", f"{output_spec(kind, out)},{keep}")
    assert result.returncode == 0, result.stderr
    assert output_details(result.report, kind)["events_written"] == HZZ.events
    output = read_events(out)
    assert output.products == storable
    assert_same_events(output, expected, products=storable)


def test_lanes_open_an_rntuple_with_a_map_field_at_once(tmp_path, lanes):
    """Each lane opens its own reader (handles=lane), all at the start: ROOT makes the class of the map's std::pair
    as the first reader's fields are built, and a lane that raced it once found the class without its members
    ("first: no such member", about one job in ten). Twenty jobs of two lanes each read all 12 events."""
    out = tmp_path / "map.root"
    written = lanes("run", "--source", "test-products", "-n", "12", "-t", "2", "--output", f"rntuple:file={out}")
    assert written.returncode == 0, written.stderr
    for _ in range(20):
        result = lanes("run", "--source", f"rntuple:file={out}", "-n", "0", "-t", "2", "-l", "2", "--output", "dummy")
        assert result.returncode == 0 and result.report["events"] == 12, result.stderr


@pytest.mark.parametrize("kind,setting", [("root", 404), ("parallel-root", 404), ("rntuple", 505),
                                          ("rntuple-parallel", 505)])
def test_default_compression(written, kind, setting):
    """TTrees are compressed with lz4 by default (404: ROOT checks the XXH64 of every lz4-compressed basket, where
    zstd's carry no checksum), RNTuples with zstd (505: every page carries a checksum whatever the compression)."""
    result, path = written(NANO, kind)
    assert result.returncode == 0, result.stderr
    with uproot.open(path) as file:
        assert file.file.fCompress == setting
