"""ATLAS PHYSLITE as an RNTuple (scikit-hep-testdata's uproot-physlite-rntuple_v1-0-0-0.root, RNTuple EventData, 100
events, 854 fields), where no xAOD class has a dictionary. `lanes inspect` names the fields lanes cannot read here
(three xAOD aux containers that ROOT 6.40 can neither read without their dictionary nor emulate) and the exclude=
globs that leave them out; with those, or unreadable=skip, everything else reads. The AuxDyn fields, where the
physics is, read whole: the copies lanes writes of them to an RNTuple and to a TTree hold uproot's values of the
original, field by field: all but the 82 that lanes reads emulated, having no dictionary for their types
(ElementLinks, and nested std::vectors and pairs of types ROOT has none for here), which no ROOT output can store:
NTupleSourceTest checks those against ROOT's own reading of their columns and types."""

import json

import awkward as ak
import pytest
import uproot

from conftest import run_lanes
from rootio import DATA, assert_clean_failure

PHYSLITE = DATA / "rntuple" / "uproot-physlite-rntuple_v1-0-0-0.root"
UNREADABLE = ["METAssoc_AnalysisMETAux:", "AntiKt10TruthSoftDropBeta100Zcut10JetsAux:", "AntiKt4TruthDressedWZJetsAux:"]


@pytest.fixture(scope="module")
def event_data(tmp_path_factory):
    result = run_lanes("inspect", PHYSLITE, "--json", cwd=tmp_path_factory.mktemp("inspect"))
    assert result.returncode == 0, result.stderr
    return next(dataset for dataset in json.loads(result.stdout) if dataset["name"] == "EventData")


def aux_dyn(event_data, emulated):
    """The AuxDyn fields, those lanes reads emulated or the others."""
    return [p["name"] for p in event_data["products"] if "AuxDyn:" in p["name"] and p["emulated"] == emulated]


def test_inspect_names_the_fields_lanes_cannot_read_and_the_globs_that_leave_them_out(event_data):
    assert len(event_data["products"]) == 854
    unreadable = {p["name"]: p["unreadable"] for p in event_data["products"] if p["unreadable"]}
    assert sorted(unreadable) == sorted(UNREADABLE)
    assert all("no dictionary for xAOD::" in why and "ROOT cannot emulate it" in why for why in unreadable.values())
    assert event_data["exclude"] == ",".join(f"exclude={name}" for name in UNREADABLE)
    assert len(aux_dyn(event_data, False)) == 672 and len(aux_dyn(event_data, True)) == 82
    element_links = [p["name"] for p in event_data["products"] if "AuxDyn:" in p["name"] and "ElementLink<" in p["type"]]
    assert len(element_links) == 76 and set(element_links) <= set(aux_dyn(event_data, True))


def test_the_source_refuses_in_one_line_then_reads_the_rest_with_the_globs_or_skip(lanes, event_data):
    source = f"rntuple:file={PHYSLITE},ntuple=EventData"
    refused = lanes("run", "-n", "0", "--source", source, "--output", "dummy")
    assert_clean_failure(refused, f"'{PHYSLITE}'", "RNTuple 'EventData'", "3 selected fields cannot be read here",
                         *(f"'{name}' (no dictionary for xAOD::" for name in UNREADABLE), event_data["exclude"],
                         "unreadable=skip", codes=(2,))
    for options in (event_data["exclude"], "unreadable=skip"):
        result = lanes("run", "-t", "2", "-n", "0", "--source", f"{source},{options}", "--output", "dummy")
        assert result.returncode == 0, result.stderr
        assert result.report["events"] == 100
    assert [field["name"] for field in result.report["source"]["skipped_fields"]] == UNREADABLE
    assert "skipped 3 fields that cannot be read here: " + ", ".join(UNREADABLE) in result.stdout


@pytest.fixture(scope="module")
def copies(tmp_path_factory, event_data):
    """The AuxDyn fields lanes does not read emulated, copied by lanes at 2 threads to an RNTuple and a TTree."""
    directory = tmp_path_factory.mktemp("copies")
    excluded = ",".join(f"exclude={name}" for name in aux_dyn(event_data, True))
    result = run_lanes("run", "-t", "2", "-n", "0", "--source",
                       f"rntuple:file={PHYSLITE},ntuple=EventData,fields=*AuxDyn:*,{excluded}",
                       "--output", "rntuple:file=copy.rntuple.root", "--output", "root:file=copy.root",
                       cwd=directory, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == 100
    return directory / "copy.rntuple.root", directory / "copy.root"


@pytest.mark.parametrize("kind", ["rntuple", "ttree"])
def test_the_copies_hold_uproots_values_field_by_field(event_data, copies, kind):
    fields = aux_dyn(event_data, False)
    with uproot.open(PHYSLITE) as file:
        original = file["EventData"].arrays(fields)
    with uproot.open(copies[kind == "ttree"]) as file:
        copy = file["Events"].arrays(fields + ["event"])
    copy = copy[ak.argsort(copy["event"])]  # lanes numbers the events 1.. by entry; outputs write them as they end
    # A char is an int8 in the TTree, where uproot reads an RNTuple's as uint8: the values, not the types, must agree.
    assert ak.to_list(copy["event"]) == list(range(1, 101))
    differing = [field for field in fields if not ak.array_equal(original[field], copy[field], equal_nan=True, dtype_exact=False)]
    assert differing == []
