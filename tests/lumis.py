"""The run and lumi records lanes writes beside its events (the LuminosityBlocks and Runs trees or RNTuples),
read back with uproot and checked against numpy over the input: one row per (run, lumi) and per run, the events of
each, and the products of the example module examples/modules/LumiExample.cpp (a histogram of muon pT per lumi,
the events of each run), which the tests load from its plugin library.
"""

from pathlib import Path

import awkward as ak
import numpy as np
import uproot

from conftest import BINARY

# The example modules as a plugin library (cmake/PluginApi.cmake), beside the build's bin/.
EXAMPLES = BINARY.parents[1] / "lib" / "liblanes_examples.so"
NANO = Path(__file__).resolve().parents[1] / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
# The example's bins: 5 GeV from 0 to 100 GeV, then 100 GeV and above.
PT_EDGES = np.append(np.arange(0, 101, 5), np.inf)


def example(*options):
    """`--module` arguments of the example module, with its library."""
    spec = "example-lumi-muons" + (":" + ",".join(options) if options else "")
    return ["--plugin-library", EXAMPLES, "--module", spec]


def expected_from_input(path=NANO, events=None):
    """What the example module puts, from numpy over the input's first `events` events (all if None):
    ({(run, lumi): (events, histogram)}, {run: events})."""
    arrays = uproot.open(path)["Events"].arrays(["run", "luminosityBlock", "Muon_pt"], entry_stop=events)
    lumis, runs = {}, {}
    for key in sorted(set(zip(arrays["run"].tolist(), arrays["luminosityBlock"].tolist()))):
        selected = (arrays["run"] == key[0]) & (arrays["luminosityBlock"] == key[1])
        pts = np.asarray(ak.flatten(arrays["Muon_pt"][selected]), dtype=np.float64)
        lumis[key] = (int(np.count_nonzero(selected)), np.histogram(pts, bins=PT_EDGES)[0].astype(np.float64))
        runs[key[0]] = runs.get(key[0], 0) + int(np.count_nonzero(selected))
    return lumis, runs


def written_records(path):
    """The LuminosityBlocks and Runs (TTrees or RNTuples) of a file lanes wrote, as numpy arrays by column."""
    file = uproot.open(path)
    return {name: file[name].arrays(library="np") for name in ("LuminosityBlocks", "Runs")}


def assert_each_once(records):
    """No (run, lumi) and no run is written twice."""
    lumis = list(zip(records["LuminosityBlocks"]["run"].tolist(), records["LuminosityBlocks"]["luminosityBlock"].tolist()))
    assert len(lumis) == len(set(lumis)), f"a lumi written twice: {sorted(lumis)}"
    runs = records["Runs"]["run"].tolist()
    assert len(runs) == len(set(runs)), f"a run written twice: {runs}"


def assert_example_records(path, events=None, input_path=NANO):
    """The records of `path` are what the example module makes of the input, each once: every lumi's events and
    histogram, every run's events (the output's count, and the module's run product)."""
    records = written_records(path)
    assert_each_once(records)
    lumis, runs = expected_from_input(input_path, events)
    written = records["LuminosityBlocks"]
    found = {(run, lumi): (count, np.asarray(histogram, dtype=np.float64)) for run, lumi, count, histogram in
             zip(written["run"].tolist(), written["luminosityBlock"].tolist(), written["events"].tolist(),
                 written["muonPt"])}
    assert sorted(found) == sorted(lumis)
    for key, (count, histogram) in lumis.items():
        assert found[key][0] == count, f"lumi {key}"
        np.testing.assert_array_equal(found[key][1], histogram, err_msg=f"lumi {key}")
    written_runs = records["Runs"]
    assert dict(zip(written_runs["run"].tolist(), written_runs["events"].tolist())) == runs
    assert dict(zip(written_runs["run"].tolist(), written_runs["runEvents"].tolist())) == runs


# ---------------------------------------------------------------------------------------------------------------------
# Two NanoAOD-like input files with records: a lumi that comes back (2:3 after 2:4 and 1:1), run numbers that go
# back, a LuminosityBlocks row without events (1:9, an empty lumi at the first file's end), a lumi and runs listed
# in both files (their records add up), muons for the example module.

INPUTS = {
    "a.root": {
        "ids": [(2, 3)] * 3 + [(2, 4)] * 2 + [(1, 1)] * 2 + [(2, 3)] * 2,
        "lumis": [((2, 3), 1.0), ((2, 4), 2.0), ((1, 1), 4.0), ((1, 9), 8.0)],
        "runs": [(1, 10, [1.0, 1.0]), (2, 20, [1.0, 2.0])],
    },
    "b.root": {
        "ids": [(2, 3)] * 2 + [(3, 1)] * 3,
        "lumis": [((2, 3), 16.0), ((3, 1), 32.0)],
        "runs": [(2, 40, [3.0, 4.0]), (3, 5, [0.5, 0.5])],
    },
}


def write_trees(path, trees):
    """A file of TTrees {name: {branch: array}} (jagged arrays become leaf arrays with a count branch n<name>)."""
    with uproot.recreate(path) as file:
        for name, branches in trees.items():
            types = {key: ("var * " + str(ak.type(value).content.content)) if isinstance(value, ak.Array)
                     else value.dtype for key, value in branches.items()}
            file.mktree(name, types).extend(branches)
    return path


def write_inputs(directory):
    """The files of INPUTS in `directory` (event numbers count on across them; muons of pT 7 * event % 130 GeV);
    returns their paths, in order."""
    paths, first = [], 1
    for name, content in INPUTS.items():
        runs, lumis = (np.array(column, dtype=np.uint32) for column in zip(*content["ids"]))
        events = np.arange(first, first + len(runs), dtype=np.uint64)
        first += len(runs)
        muons = ak.Array([[(7.0 * e * k) % 130 for k in range(1, int(e) % 4 + 1)] for e in events.tolist()])
        keys, weights = zip(*content["lumis"])
        run, count, sumw = zip(*content["runs"])
        trees = {
            "Events": {"run": runs, "luminosityBlock": lumis, "event": events,
                       "Muon_pt": ak.values_astype(muons, np.float32)},
            "LuminosityBlocks": {"run": np.array([k[0] for k in keys], np.uint32),
                                 "luminosityBlock": np.array([k[1] for k in keys], np.uint32),
                                 "weight": np.array(weights)},
            "Runs": {"run": np.array(run, np.uint32), "genEventCount": np.array(count, np.int64),
                     "LHEScaleSumw": ak.Array([list(s) for s in sumw])},  # a leaf array, with its count
        }
        paths.append(write_trees(Path(directory) / name, trees))
    return paths


def expected_inputs(directory):
    """What a job over every input file writes, from numpy over INPUTS: ({(run, lumi): (events, weight)},
    {run: (events, genEventCount, LHEScaleSumw)}); the records of a run or lumi add up over the files."""
    lumis, runs = {}, {}
    for content in INPUTS.values():
        for key in content["ids"]:
            events, weight = lumis.get(key, (0, 0.0))
            lumis[key] = (events + 1, weight)
            run = runs.get(key[0], (0, 0, np.zeros(2)))
            runs[key[0]] = (run[0] + 1, run[1], run[2])
        for key, weight in content["lumis"]:
            events, total = lumis.get(key, (0, 0.0))
            lumis[key] = (events, total + weight)
        for run, count, sumw in content["runs"]:
            events, total, sums = runs.get(run, (0, 0, np.zeros(2)))
            runs[run] = (events, total + count, sums + np.array(sumw))
    return lumis, runs


def assert_input_records(path, directory):
    """The records of `path`, written from every input file, are INPUTS' (each once), and the example module's
    histogram and count where it ran."""
    records = written_records(path)
    assert_each_once(records)
    lumis, runs = expected_inputs(directory)
    written = records["LuminosityBlocks"]
    found = {(r, l): (e, w) for r, l, e, w in zip(written["run"].tolist(), written["luminosityBlock"].tolist(),
                                                     written["events"].tolist(), written["weight"].tolist())}
    assert found == lumis
    written = records["Runs"]
    assert {r: (e, c) for r, e, c in zip(written["run"].tolist(), written["events"].tolist(),
                                         written["genEventCount"].tolist())} == {r: v[:2] for r, v in runs.items()}
    for run, sums in zip(written["run"].tolist(), written["LHEScaleSumw"]):
        np.testing.assert_array_equal(np.asarray(sums), runs[run][2], err_msg=f"run {run}")
    if "muonPt" in records["LuminosityBlocks"]:
        arrays = [uproot.open(Path(directory) / name)["Events"].arrays(["run", "luminosityBlock", "Muon_pt"])
                  for name in INPUTS]
        written = records["LuminosityBlocks"]
        for run, lumi, histogram in zip(written["run"].tolist(), written["luminosityBlock"].tolist(), written["muonPt"]):
            pts = np.concatenate([np.asarray(ak.flatten(a["Muon_pt"][(a["run"] == run) & (a["luminosityBlock"] == lumi)]),
                                             dtype=np.float64) for a in arrays])
            np.testing.assert_array_equal(np.asarray(histogram), np.histogram(pts, bins=PT_EDGES)[0],
                                          err_msg=f"lumi {run}:{lumi}")
        assert dict(zip(records["Runs"]["run"].tolist(), records["Runs"]["runEvents"].tolist())) == \
            {r: v[0] for r, v in runs.items()}
