"""TTree branches of classes from another experiment, read where their dictionary is not loaded: ROOT emulates them
from the file's streamer information. lanes reads what ROOT emulates (classes with enum, Long64_t and Double32_t
members, collections of classes, nested collections); a class that ROOT could only abort on (a std::list<bool>
member: "Unsupported value type 18") is refused before the job, in one line naming the file, the tree and the branch
and saying that exclude= leaves it out (or that dictionaries=DIR builds its dictionary); `lanes inspect` names it.
A file whose streamer information is damaged fails in one line. Never a signal, never ROOT's abort."""

import json
import struct
import subprocess
import sys

import pytest
import uproot

from faults import assert_nothing_under, assert_one_line_error, run_limited

ENTRIES = 20

# The classes exist only in the process that writes the file: ACLiC compiles this macro, dictionaries included,
# in a directory of its own.
FOREIGN_CLASSES = r"""
#include <list>
#include <vector>
#include "TFile.h"
#include "TTree.h"
enum Quality { kBad = 0, kLoose = 1, kTight = 2 };
enum class Origin : short { prompt = 1, decay = 2 };
struct Hit { float x; Double32_t t; Long64_t channel; Quality q; Origin origin; };
struct Track { Long64_t id; Double32_t pt; Quality q; std::vector<Hit> hits; std::vector<std::vector<float>> cov; };
struct Flags { int n; std::list<bool> bits; };
#ifdef __ROOTCLING__
#pragma link C++ class Hit+;
#pragma link C++ class Track+;
#pragma link C++ class Flags+;
#pragma link C++ class std::vector<Hit>+;
#pragma link C++ class std::vector<Track>+;
#pragma link C++ class std::list<bool>+;
#pragma link C++ function writeForeign;
#endif
void writeForeign(const char* path, int entries) {
  TFile file(path, "RECREATE");
  TTree tree("Events", "");
  std::vector<Track> tracks; Track track; Track unsplit; Flags flags;
  tree.Branch("tracks", &tracks);
  tree.Branch("track", &track);
  tree.Branch("unsplit", &unsplit, 32000, 0);
  tree.Branch("flags", &flags);
  for (int i = 0; i < entries; ++i) {
    tracks.clear();
    for (int k = 0; k < i % 4; ++k) {
      Track t{Long64_t(i) << 33 | k, 0.25 * (i + k), Quality(k % 3), {}, {}};
      for (int h = 0; h <= k; ++h)
        t.hits.push_back(Hit{float(h), 0.5 * h, Long64_t(h) << 40, Quality(h % 3), h % 2 ? Origin::prompt : Origin::decay});
      t.cov.assign(k, std::vector<float>(k + 1, 1.5f * i));
      tracks.push_back(t);
    }
    track = tracks.empty() ? Track{-1, -1.0, kBad, {}, {}} : tracks.back();
    unsplit = track;
    flags.n = i;
    flags.bits.assign(i % 3, i % 2 == 0);
    tree.Fill();
  }
  tree.Write();
}
"""

WRITE = """
import sys, ROOT
ROOT.gSystem.SetBuildDir(".", True)
assert ROOT.gSystem.CompileMacro("Foreign.C", "kO") == 1
ROOT.writeForeign(sys.argv[1], int(sys.argv[2]))
"""


@pytest.fixture(scope="module")
def foreign(tmp_path_factory):
    directory = tmp_path_factory.mktemp("writer")
    (directory / "Foreign.C").write_text(FOREIGN_CLASSES)
    path = directory / "foreign.root"
    subprocess.run([sys.executable, "-c", WRITE, str(path), str(ENTRIES)], check=True, capture_output=True,
                   cwd=directory, timeout=600)
    return path


MODES = pytest.mark.parametrize("mode", [[], ["--processes", "2"]], ids=["single", "processes"])


@MODES
def test_a_class_root_cannot_emulate_is_refused_before_the_job(tmp_path, foreign, mode):
    out = tmp_path / "out.root"
    result = run_limited("run", "-n", "0", "-t", "2", *mode, "--source", f"root:file={foreign}", "--output",
                         f"root:file={out}", cwd=tmp_path)
    assert_one_line_error(result, f"'{foreign}'", "TTree 'Events'", "1 selected branch cannot be read here: 'flags' (",
                          "class 'Flags'", "Unsupported value type 18", "exclude=flags", "dictionaries=DIR",
                          "unreadable=skip", code=2)
    assert_nothing_under(out)


@MODES
@pytest.mark.parametrize("handles", ["shared", "lane"])
def test_exclude_leaves_it_out_and_the_rest_is_read_emulated(tmp_path, foreign, mode, handles):
    # A waiter consumes every product: each event's tracks, track and unsplit are read through ROOT's emulation.
    result = run_limited("run", "-n", "0", "-t", "2", *mode, "--source",
                         f"root:file={foreign},exclude=flags,handles={handles}", "--waiter", "busy:scale=1e-12",
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == ENTRIES
    assert "lanes: error" not in result.stderr


@MODES
def test_unreadable_skip_reads_the_rest_and_says_what_it_skipped(tmp_path, foreign, mode):
    result = run_limited("run", "-n", "0", "-t", "2", *mode, "--source", f"root:file={foreign},unreadable=skip",
                         "--waiter", "busy:scale=1e-12", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == ENTRIES
    [skipped] = result.report["source"]["skipped_branches"]
    assert skipped["name"] == "flags" and "Unsupported value type 18" in skipped["why"]
    assert "  skipped 1 branch that cannot be read here: flags (" in result.stdout


def test_inspect_names_the_branch_it_cannot_read_and_why(tmp_path, foreign):
    result = run_limited("inspect", foreign, "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (tree,) = json.loads(result.stdout)
    unreadable = {p["name"]: p["unreadable"] for p in tree["products"]}
    assert unreadable["tracks"] is None and unreadable["track"] is None and unreadable["unsplit"] is None
    assert "Unsupported value type 18" in unreadable["flags"] and tree["exclude"] == "exclude=flags"
    table = run_limited("inspect", foreign, cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    assert [line for line in table.stdout.splitlines() if "cannot read" in line or "reads the rest" in line] == [
        f"  cannot read 'flags': {unreadable['flags']}",
        "  the root source reads the rest with exclude=flags (or unreadable=skip)"]


def test_with_dictionaries_every_branch_is_copied_value_for_value(tmp_path, foreign):
    """dictionaries=DIR builds the classes, the list<bool> member's included: every branch is read, and the
    branches uproot reads (a split class; a class with a list<bool>) hold the same values in the copy, entry by entry
    (one lane: two write their events in the order they finish them)."""
    out = tmp_path / "out.root"
    result = run_limited("run", "-t", "1", "-n", "0", "--source", f"root:file={foreign},dictionaries=dictionaries", "--output",
                         f"root:file={out}", cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr
    with uproot.open(foreign) as original, uproot.open(out) as copy:
        for branch in ("track", "flags"):
            assert copy["Events"][branch].arrays().tolist() == original["Events"][branch].arrays().tolist(), branch


def damage_streamer_information(source, path, offset):
    """A copy of `source` with 4 bytes inverted at `offset` from the start of its streamer information record (the
    key's header; its compression header at the key's length; its zlib-compressed payload after that)."""
    data = bytearray(source.read_bytes())
    with uproot.open(source) as file:
        seek = file.file.fSeekInfo
    data[seek + offset:seek + offset + 4] = bytes(b ^ 0xFF for b in data[seek + offset:seek + offset + 4])
    path.write_bytes(bytes(data))
    return path


def streamer_information_key_length(source):
    with uproot.open(source) as file:
        seek = file.file.fSeekInfo
    return struct.unpack(">h", source.read_bytes()[seek + 14:seek + 16])[0]


@pytest.mark.parametrize("where", ["key-lengths", "compression-header", "payload-start", "payload-middle",
                                   "payload-end"])
def test_damaged_streamer_information_is_a_one_line_error(tmp_path, foreign, where):
    key = streamer_information_key_length(foreign)
    with uproot.open(foreign) as file:
        size = file.file.fNbytesInfo
    offset = {"key-lengths": 4, "compression-header": key, "payload-start": key + 12,
              "payload-middle": (key + size) // 2, "payload-end": size - 8}[where]
    bad = damage_streamer_information(foreign, tmp_path / "bad.root", offset)
    out = tmp_path / "out.root"
    result = run_limited("run", "-n", "0", "--source", f"root:file={bad},exclude=flags", "--output",
                         f"root:file={out}", cwd=tmp_path)
    # ROOT's decompressor prints its own complaint first, past lanes' handler of ROOT's messages.
    result.stderr = "\n".join(line for line in result.stderr.splitlines()
                              if not line.startswith(("R__unzip", "Error R__unzip", "Error in unzip")))
    assert_one_line_error(result, f"'{bad}'", code=2)
    assert_nothing_under(out)
