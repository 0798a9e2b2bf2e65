"""Object products are views of objects that the sources reuse for later events (ProductSlot::lend): under
contention (more lanes than threads, shared and per-lane handles, outputs that write while other lanes read, a
repeat cache that keeps products) every event must still carry its own values. The file is NanoAOD with every
branch an object branch, its ids in the leaf list EventID, read with id=EventID (and the blob files written
from it); and the RNTuple of muons."""

import functools
from collections import Counter

import pytest

from conftest import run_lanes
from rootio import DATA, MUONS, Events, assert_clean_failure, assert_same_events, output_details, read_events, read_input
from test_inputs import hashable

VECTORS = DATA / "nanoAOD_2015_ttbar_vector_branches.root"


@functools.lru_cache(maxsize=None)
def expected_events():
    """The file's events as uproot reads them, the ids taken from EventID (run, lumi, event)."""
    events = read_events(VECTORS)
    ids = [(r["EventID"]["run"], r["EventID"]["lumi"], r["EventID"]["event"]) for _, r in events.all_records]
    columns = {p: [r[p] for _, r in events.all_records] for p in events.products if p != "EventID"}
    types = {p: t for p, t in events.types.items() if p != "EventID"}
    return Events(ids, columns, types)


@pytest.mark.parametrize(
    "handles, output",
    [("handles=shared", "parallel-root:file={},concurrency=2,flush=7"), ("handles=lane,chunk=7", "root:file={}"),
     ("handles=lane", "rntuple-parallel:file={},concurrency=2")],
    ids=["shared-parallel-root", "lane-root", "lane-rntuple-parallel"],
)
def test_every_event_keeps_its_own_objects_under_contention(tmp_path, lanes, handles, output):
    out = tmp_path / "out.root"
    result = lanes("run", "--source", f"root:file={VECTORS},id=EventID,{handles}", "-n", "0", "-t", "2", "--lanes",
                   "8", "--output", output.format(out))
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == 200
    assert_same_events(read_events(out), expected_events())


@pytest.mark.parametrize("handles", ["handles=shared", "handles=lane,chunk=7"])
def test_rntuple_fields_keep_their_own_objects_under_contention(tmp_path, lanes, handles):
    out = tmp_path / "out.root"
    options = dict(option.split("=") for option in handles.split(","))
    result = lanes("run", "--source", MUONS.spec(**options), "-n", "0", "-t", "2", "--lanes", "8", "--output",
                   f"parallel-root:file={out},concurrency=2,flush=7")
    assert result.returncode == 0, result.stderr
    assert_same_events(read_events(out), read_input(MUONS))


def test_a_repeat_cache_keeps_the_objects_it_holds(tmp_path, lanes):
    out = tmp_path / "out.root"
    result = lanes("run", "--source", f"root:file={VECTORS},id=EventID,repeat=50", "-n", "200", "-t", "2", "--lanes",
                   "8", "--output", f"root:file={out}")
    assert result.returncode == 0, result.stderr
    assert output_details(result.report, "root")["events_written"] == 200
    expected = expected_events()
    jets = Counter(hashable(r["Jet_pt"]) for _, r in read_events(out).all_records)
    assert jets == Counter(hashable(r["Jet_pt"]) for _, r in expected.all_records[:50] * 4)


# Per kind: the blob output that writes the object-branch file (FILE: its path), and the source that reads it.
BLOB_SOURCES = {
    "root-events": ("root-events:file=FILE.root,compression=zstd,level=1", "root-events:file={}"),
    "pds-unrolled": ("pds:file=FILE.pds,serialization=unrolled,compress=product", "pds:file={}"),
    "pds-lane": ("pds:file=FILE.pds,compression=none,batch=5", "pds:file={},handles=lane,chunk=3"),
    "hdf5-blobs": ("hdf5:file=FILE.h5,layout=blobs,compression=zstd,compress=product", "hdf5:file={},batch=7"),
    "hdf5-columns": ("hdf5:file=FILE.h5,layout=columns", "hdf5:file={},batch=7"),
}


@pytest.fixture(scope="module")
def blob_file(tmp_path_factory):
    """The object-branch file of a kind of BLOB_SOURCES, written once, on one thread: its events in the order of
    the input's."""
    directory = tmp_path_factory.mktemp("blobs")
    written = {}

    def of(kind):
        if kind not in written:
            output = BLOB_SOURCES[kind][0].replace("FILE", str(directory / kind))
            result = run_lanes("run", "--source", f"root:file={VECTORS},id=EventID", "-n", "0", "-t", "1",
                               "--output", output, cwd=directory)
            assert result.returncode == 0, result.stderr
            written[kind] = output.split("file=")[1].split(",")[0]
        return written[kind]

    return of


@pytest.mark.parametrize("kind", BLOB_SOURCES)
def test_blob_sources_keep_every_events_own_objects_under_contention(tmp_path, lanes, blob_file, kind):
    out = tmp_path / "out.root"
    result = lanes("run", "--source", BLOB_SOURCES[kind][1].format(blob_file(kind)), "-n", "0", "-t", "2", "--lanes", "8", "--output",
                   f"parallel-root:file={out},concurrency=2,flush=7")
    assert result.returncode == 0, result.stderr
    assert_same_events(read_events(out), expected_events())


@pytest.mark.parametrize("kind", ["root-events", "hdf5-columns"])
def test_a_repeat_cache_keeps_the_blob_objects_it_holds(tmp_path, lanes, blob_file, kind):
    source = BLOB_SOURCES[kind][1].format(blob_file(kind))
    first, out = tmp_path / "first.root", tmp_path / "out.root"
    # The events the cache takes: the source's first 50 (a blob output need not keep the input's order).
    result = lanes("run", "--source", source, "-n", "50", "-t", "1", "--output", f"root:file={first}")
    assert result.returncode == 0, result.stderr
    cached = read_events(first)
    expected = expected_events()
    assert_same_events(cached, Events(cached.ids, {p: [expected.records[i][p] for i in cached.ids]
                                                   for p in expected.products}, expected.types))
    result = lanes("run", "--source", source + ",repeat=50", "-n", "200", "-t", "2", "--lanes", "8", "--output",
                   f"root:file={out}")
    assert result.returncode == 0, result.stderr
    jets = Counter(hashable(r["Jet_pt"]) for _, r in read_events(out).all_records)
    assert jets == Counter(hashable(r["Jet_pt"]) for _, r in cached.all_records * 4)


@pytest.mark.parametrize(
    "option, fragments",
    [("id=Nope", ("no branch 'Nope'",)), ("id=Jet_pt", ("id branch 'Jet_pt'", "no integer leaf 'run'")),
     ("id=", ("id= names no branch",))],
)
def test_a_bad_id_branch_is_a_configuration_error(tmp_path, lanes, option, fragments):
    out = tmp_path / "out.root"
    result = lanes("run", "--source", f"root:file={VECTORS},{option}", "-n", "0", "--output", f"root:file={out}")
    assert_clean_failure(result, *fragments, codes=(2,), output=out)
