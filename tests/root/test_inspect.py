"""`lanes inspect`: tables and JSON from a file's metadata, a profile the synthetic source runs, and bad input."""

import json

from rootio import DATA


NANO = DATA / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
MUONS = DATA / "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root"


def test_json_lists_every_branch_with_its_sizes(lanes):
    result = lanes("inspect", NANO, "--json")
    assert result.returncode == 0, result.stderr
    (tree,) = json.loads(result.stdout)
    assert (tree["kind"], tree["name"], tree["entries"]) == ("TTree", "Events", 200)
    assert len(tree["products"]) == 947
    jet_pt = next(p for p in tree["products"] if p["name"] == "Jet_pt")
    assert jet_pt["type"] == "Float_t[nJet]"
    assert jet_pt["uncompressed_bytes_per_event"] > 0


def test_the_profile_runs_as_a_synthetic_source(lanes, tmp_path):
    profile = tmp_path / "muons.json"
    result = lanes("inspect", MUONS, "--profile", profile)
    assert result.returncode == 0, result.stderr
    assert "RNTuple 'Events': 1000 entries" in result.stdout
    run = lanes("run", "--source", f"synthetic:profile={profile},events=50", "--output", "dummy", "-n", "0")
    assert run.returncode == 0, run.stderr
    assert run.report["events"] == 50


def test_bad_input_is_one_line_naming_the_file(lanes, tmp_path):
    text = tmp_path / "notes.root"
    text.write_text("not ROOT\n")
    for path, words in ((tmp_path / "missing.root", "does not exist"), (text, "not a readable ROOT file")):
        result = lanes("inspect", path)
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("lanes: error: ")
        assert str(path) in lines[0] and words in lines[0]
    unknown = lanes("inspect", NANO, "--profile", tmp_path / "p.json", "--dataset", "Nope")
    assert unknown.returncode == 2 and "no TTree or RNTuple 'Nope'" in unknown.stderr
