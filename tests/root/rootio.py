"""Helpers for the ROOT I/O tests: the input files, and uproot (an independent reader) to compare events.

Events are matched by their id (run, luminosityBlock, event), never by position: outputs write events in
completion order.
"""

import contextlib
import functools
import glob
import math
import re
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import awkward as ak
import pytest
import uproot

from conftest import BINARY, Result

DATA = Path(__file__).resolve().parents[2] / "data" / "files"
ID_COLUMNS = ("run", "luminosityBlock", "event")


@dataclass(frozen=True)
class Input:
    """A file of data/files as a lanes source."""

    name: str  # test id
    file: str
    plugin: str  # lanes source plugin: root | rntuple
    tree: str  # TTree or RNTuple name
    events: int
    skipped: tuple = ()  # top-level fields that are not products (untyped RNTuple records)
    needs_dictionaries: bool = False  # holds classes without a compiled dictionary
    rntuple_unstorable: tuple = ()  # products that RNTuple cannot store at all

    @property
    def path(self):
        return DATA / self.file

    def spec(self, dictionaries=None, paths=None, **options):
        """The --source spec reading this input (or `paths`, a list of files, instead); `dictionaries` (a
        directory) is passed only if the input needs it."""
        return source_spec(self.plugin, [self.path] if paths is None else paths, self.tree,
                           dictionaries if self.needs_dictionaries else None, **options)


def source_spec(plugin, paths, name="Events", dictionaries=None, **options):
    """A --source spec reading the TTree or RNTuple `name` of `paths` (a file or a list) with the lanes source
    `plugin`; `options` are added as they are."""
    items = [f"file={path}" for path in (paths if isinstance(paths, (list, tuple)) else [paths])]
    items.append(f"{'tree' if plugin == 'root' else 'ntuple'}={name}")
    if dictionaries is not None:
        items.append(f"dictionaries={dictionaries}")
    items += [f"{key}={value}" for key, value in options.items()]
    return f"{plugin}:" + ",".join(items)


NANO = Input("nanoaod", "nanoAOD_2015_CMS_Open_Data_ttbar.root", "root", "Events", 200)
# vector<TLorentzVector> has no compiled dictionary; RNTuple stores none of TLorentzVector, TVector2, TVector3
# (classes with a custom streamer).
HZZ = Input("hzz-objects", "uproot-HZZ-objects.root", "root", "events", 2421, needs_dictionaries=True,
            rntuple_unstorable=("jetp4", "muonp4", "electronp4", "photonp4", "MET", "MC_bquarkhadronic",
                                "MC_bquarkleptonic", "MC_wdecayb", "MC_wdecaybbar", "MC_lepton", "MC_neutrino"))
# The class Event (and its member P3) exists only as streamer info; RNTuple cannot store its TString members.
FULLSPLIT = Input("event-fullsplit", "uproot-small-evnt-tree-fullsplit.root", "root", "tree", 100,
                  needs_dictionaries=True, rntuple_unstorable=("evt",))
MUONS = Input("muons-rntuple", "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root", "rntuple", "Events",
              1000, skipped=("_collection0",))
INPUTS = (NANO, HZZ, FULLSPLIT, MUONS)

# Output specs by test id; {} is the file.
OUTPUTS = {
    "root": "root:file={}",
    "root-imt": "root:file={},imt=true",
    "parallel-root": "parallel-root:file={},concurrency=2,flush=7",
    "rntuple": "rntuple:file={}",
    "rntuple-parallel": "rntuple-parallel:file={},concurrency=2",
}


def output_spec(kind, path):
    return OUTPUTS[kind].format(path)


def stores(input, output_kind):
    """Whether `output_kind` can store every product of `input` (else the job must fail cleanly)."""
    return not (output_kind.startswith("rntuple") and input.rntuple_unstorable)


# ---------------------------------------------------------------------------------------------------------------------
# Reading events with uproot


class Events:
    """The events of a file: `ids` in file order, `records` {id: {product: value}} (last one wins on duplicate ids),
    `all_records` a list of (id, record) in file order, `products` the product names, `types` {product: type}."""

    def __init__(self, ids, columns, types):
        self.ids = ids
        self.products = sorted(columns)
        self.types = types
        self.all_records = [(i, {p: columns[p][k] for p in self.products}) for k, i in enumerate(ids)]
        self.records = dict(self.all_records)

    def __len__(self):
        return len(self.ids)


def normalise(value):
    """A plain Python value that compares equal iff the data are equal: nested records are flattened to dotted
    names ({"P3": {"Px": 1}} and a split leaf "P3.Px" both become "P3.Px"), fixed-size array suffixes are
    dropped from names ("ArrayI16[10]" is "ArrayI16"), and NaN equals NaN."""
    if isinstance(value, dict):
        flat = {}
        for key, item in value.items():
            key = re.sub(r"\[\d+\]$", "", key)
            item = normalise(item)
            if isinstance(item, dict):
                flat.update({f"{key}.{sub}": v for sub, v in item.items()})
            else:
                flat[key] = item
        return flat
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return value


def type_signature(type):
    """An awkward type as `normalise` sees values: class names dropped, nested record fields flattened to dotted
    names, fixed-size array suffixes dropped from names."""
    if type.parameter("__array__") in ("string", "bytestring"):
        return "string"
    if isinstance(type, ak.types.RecordType):
        fields = {}
        for name, content in zip(type.fields, type.contents):
            name = re.sub(r"\[\d+\]$", "", name)
            signature = type_signature(content)
            if isinstance(signature, dict):
                fields.update({f"{name}.{sub}": t for sub, t in signature.items()})
            else:
                fields[name] = signature
        return fields
    if isinstance(type, ak.types.ListType):
        return ("var", type_signature(type.content))
    if isinstance(type, ak.types.RegularType):
        return (type.size, type_signature(type.content))
    if isinstance(type, ak.types.NumpyType):
        return type.primitive
    return str(type)


def _branch_array(branch):
    """A top-level branch as an awkward array; a split object branch that uproot cannot read as a whole is read
    leaf by leaf into a record whose fields are named by leaf (the names are reconciled by `normalise`)."""
    try:
        return branch.array(library="ak")
    except Exception:
        if not branch.branches:
            raise
    prefix = branch.name + "."
    leaves = {}
    for sub in branch.itervalues(recursive=True):
        if not sub.branches:
            name = sub.name[len(prefix):] if sub.name.startswith(prefix) else sub.name
            leaves[name] = sub.array(library="ak")
    return ak.zip(leaves, depth_limit=1)


def _columns(path, name, only=None):
    """{top-level name: awkward array} of the TTree or RNTuple `name` in `path` (only the names in `only`)."""
    with uproot.open(path) as file:
        obj = file[name]
        if isinstance(obj, uproot.behaviors.TBranch.HasBranches):
            return {b.name: _branch_array(b) for b in obj.branches if only is None or b.name in only}
        fields = [f for f in obj.keys(recursive=False) if only is None or f in only]
        arrays = obj.arrays(fields)
        columns = {field: arrays[field] for field in fields}
        # uproot reads the collection sizes of RNTupleCardinality<std::uint32_t> fields as int64
        for record in obj.field_records:
            if record.field_name in columns and record.type_name == "ROOT::RNTupleCardinality<std::uint32_t>":
                columns[record.field_name] = ak.values_astype(columns[record.field_name], "uint32")
        return columns


@functools.lru_cache(maxsize=None)
def _read_input(path, name, skipped):
    return read_events(path, name, skipped)


def read_input(input):
    """The events of an input file (cached: the data files are read-only)."""
    return _read_input(input.path, input.tree, input.skipped)


def read_events(path, name="Events", skipped=(), ids_only=False):
    """Reads every event of a file with uproot. The products are the top-level branches/fields except `skipped`
    and the id columns (none if `ids_only`); ids come from the id columns when all three exist, else they are
    (1, 1, entry + 1)."""
    arrays = {k: v for k, v in _columns(path, name, ID_COLUMNS if ids_only else None).items() if k not in skipped}
    if all(c in arrays for c in ID_COLUMNS):
        ids = list(zip(*(ak.to_list(arrays.pop(c)) for c in ID_COLUMNS)))
    else:
        ids = [(1, 1, entry + 1) for entry in range(len(next(iter(arrays.values()))))]
    types = {p: type_signature(a.type.content) for p, a in arrays.items()}
    columns = {p: normalise(ak.to_list(a)) for p, a in arrays.items()}
    return Events(ids, columns, types)


def assert_distinct_ids(events):
    duplicates = [i for i, n in Counter(events.ids).items() if n > 1]
    assert not duplicates, f"{len(duplicates)} duplicate event ids, e.g. {duplicates[:3]}"


def diff_records(actual, expected, where):
    """Messages for the products whose values differ between two records of the same event."""
    return [f"event {where} product {p!r}: {actual.get(p)!r:.200} != {expected[p]!r:.200}"
            for p in expected if actual.get(p) != expected[p]]


def assert_same_events(actual, expected, products=None):
    """`actual` holds exactly the events of `expected` (matched by id), each with equal values of every product.
    `products` restricts the comparison (default: all of `expected`'s, which `actual` must have exactly)."""
    if products is None:
        assert actual.products == expected.products
        products = expected.products
    assert {p: actual.types[p] for p in products} == {p: expected.types[p] for p in products}
    assert len(actual) == len(expected), (len(actual), len(expected))
    assert_distinct_ids(actual)
    missing = [i for i in expected.records if i not in actual.records]
    assert not missing, f"{len(missing)} events missing, e.g. {missing[:3]}"
    problems = []
    for event_id, record in expected.records.items():
        problems += diff_records(actual.records[event_id], {p: record[p] for p in products}, event_id)
        if len(problems) > 10:
            break
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------------------------------
# Jobs


def output_details(report, label):
    """The details of the output module `label` in a run report."""
    return next(m for m in report["modules"] if m["label"] == label)["details"]


def assert_clean_failure(result, *fragments, codes=(1, 2), output=None, decompressor_lines=False):
    """A job that failed cleanly: an exit code in `codes`, one stderr line `lanes: error: ...` containing every
    fragment, no crash, and neither a file at `output` nor its partial file (PATH.partial-<pid>).
    With `decompressor_lines`, lines of ROOT's decompressor may come first: it prints its errors ("R__unzip:
    error -3 in inflate") straight to stderr, past ROOT's error handler that lanes installs."""
    assert result.returncode in codes, (result.returncode, result.stderr)
    assert "segmentation" not in result.stderr.lower() and "stack trace" not in result.stderr.lower(), result.stderr
    lines = result.stderr.strip().splitlines()
    if decompressor_lines:
        lines = [line for line in lines if not line.startswith("R__unzip:")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lanes: error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    if output is not None:
        output = Path(output)
        assert sorted(p.name for p in output.parent.glob(glob.escape(output.name) + "*")) == []


@contextlib.contextmanager
def background_lanes(*args, cwd):
    """Starts `lanes run ARGS --report cwd/report.json` (stderr into cwd/stderr.txt) and yields the Popen; the job
    is killed if it is still running when the block ends."""
    with open(Path(cwd) / "stderr.txt", "w") as stderr:
        command = [str(BINARY), "run", *[str(a) for a in args], "--report", str(Path(cwd) / "report.json")]
        process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def poll_until(condition, seconds):
    """Polls `condition` for up to `seconds`; returns whether it became true."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def wait_for(condition, seconds, what):
    assert poll_until(condition, seconds), f"timed out after {seconds} s waiting for {what}"


def wait_for_partial(process, out):
    """The partial file (OUT.partial-PID) of the running job `process` writing `out`, once it exists."""
    partial = out.with_name(f"{out.name}.partial-{process.pid}")
    wait_for(lambda: partial.exists() or process.poll() is not None, 60, partial)
    assert process.poll() is None, f"the job ended early with {process.returncode}"
    return partial


def result_of(process, cwd, seconds, what):
    """The Result of a background job that must end within `seconds`."""
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass
    if process.returncode is None:
        pytest.fail(f"the job did not end within {seconds} s {what}")
    completed = subprocess.CompletedProcess(process.args, process.returncode, "",
                                            (Path(cwd) / "stderr.txt").read_text())
    return Result(completed, Path(cwd) / "report.json")


def keep_hdf5_events(path, start, stop):
    """Rewrites the hdf5 output's file at `path` (either layout) with h5py to hold only its events [start, stop):
    a file of its own, as if a job had written only those, to split one file's events among several. A file of
    compress=batch frames is split only at the end of a batch."""
    import h5py
    import numpy as np

    with h5py.File(path, "r+") as file:
        def replace(name, data):
            del file[name]
            file[name] = data

        replace("event_id", file["event_id"][start:stop])
        if "batch_ends" in file:
            bounds = [0, *(int(end) for end in file["batch_ends"][...])]
            assert start in bounds and stop in bounds, (start, stop, bounds)
            batches = slice(bounds.index(start), bounds.index(stop))
            replace("batch_ends", np.array(bounds[batches.start + 1:batches.stop + 1], dtype=np.uint64) - start)
        for label, group in file["products"].items():
            values = group["values"][...]
            if "offsets" in group:
                ends = group["offsets"][...]
                begin = 0 if start == 0 else int(ends[start - 1])
                replace(f"products/{label}/offsets", ends[start:stop] - np.uint64(begin))
            if "frames" in group:  # the values are the batches' frames, which hold the blobs' sizes too
                frames = [0, *(int(end) for end in group["frames"][...])]
                first, last = frames[batches.start], frames[batches.stop]
                replace(f"products/{label}/values", values[first:last])
                replace(f"products/{label}/frames",
                        np.array(frames[batches.start + 1:batches.stop + 1], dtype=np.uint64) - first)
            elif "offsets" in group:
                replace(f"products/{label}/values", values[begin:int(ends[stop - 1])])
            else:
                replace(f"products/{label}/values", values[start:stop])
