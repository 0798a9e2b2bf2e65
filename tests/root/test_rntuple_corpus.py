"""Every RNTuple of the public corpus that uproot tests against (scikit-hep-testdata: data/files/rntuple, and the CMS
muons of data/files; 25 files, 29 RNTuples), read whole by lanes at 2 threads: its entry count equals uproot's, or the
job is refused before any event in one line naming every field `lanes inspect` marks as unreadable here, with the
exclude= globs that leave them out; with those globs, or unreadable=skip, the rest reads whole. Never a crash."""

import json

import pytest
import uproot

from conftest import run_lanes
from rootio import DATA, MUONS, assert_clean_failure

CORPUS = sorted((DATA / "rntuple").glob("*.root")) + [MUONS.path]
# 100 million int16 entries in 1.8 kB: read whole at ~1.3 million events/s it would take most of the suite's time,
# so lanes reads its first two million, and `lanes inspect` counts the rest.
ENTRIES_READ = {"test_int_multicluster_rntuple_v1-0-0-0.root": 2_000_000}


def ntuples():
    for path in CORPUS:
        with uproot.open(path) as file:
            for key, cls in file.classnames().items():
                if cls == "ROOT::RNTuple":
                    yield pytest.param(path, key.split(";")[0], file[key].num_entries, id=f"{path.name}:{key[:-2]}")


NTUPLES = list(ntuples())


@pytest.fixture(scope="module")
def inspected(tmp_path_factory):
    """`lanes inspect --json` of each file of the corpus, by path: {RNTuple name: dataset}."""
    cache, directory = {}, tmp_path_factory.mktemp("inspect")

    def inspect(path):
        if path not in cache:
            result = run_lanes("inspect", path, "--json", cwd=directory)
            assert result.returncode == 0, result.stderr
            cache[path] = {dataset["name"]: dataset for dataset in json.loads(result.stdout)}
        return cache[path]

    return inspect


def read(lanes, path, ntuple, *options):
    events = ENTRIES_READ.get(path.name, 0)
    spec = ",".join([f"rntuple:file={path}", f"ntuple={ntuple}", *options])
    return lanes("run", "-t", "2", "-n", events, "--source", spec, "--output", "dummy", timeout=300), events


@pytest.mark.parametrize("path,ntuple,entries", NTUPLES)
def test_reads_whole_or_names_every_field_it_cannot_read(lanes, inspected, path, ntuple, entries):
    dataset = inspected(path)[ntuple]
    assert dataset["entries"] == entries
    unreadable = [p["name"] for p in dataset["products"] if p["unreadable"] is not None]
    result, events = read(lanes, path, ntuple)
    if not unreadable:
        assert dataset["exclude"] is None
        assert result.returncode == 0, result.stderr
        assert result.report["events"] == (events or entries)
        return
    names = [f"'{name}' (" for name in unreadable]
    assert_clean_failure(result, f"'{path}'", f"RNTuple '{ntuple}'", *names, dataset["exclude"], "unreadable=skip",
                         codes=(2,))
    for options in (dataset["exclude"].split(","), ["unreadable=skip"]):
        result, events = read(lanes, path, ntuple, *options)
        assert result.returncode == 0, result.stderr
        assert result.report["events"] == (events or entries)
    skipped = result.report["source"]["skipped_fields"]
    assert [field["name"] for field in skipped] == unreadable
    assert f"skipped {len(unreadable)} field" in result.stdout


def test_the_corpus_is_whole():
    assert len(CORPUS) == 25
    assert len(NTUPLES) == 29
