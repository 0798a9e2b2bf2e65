"""Files from other experiments and corrupt files: bytes that make ROOT call Fatal (which would abort the process),
metadata that cannot be read, and branch or field patterns that match nothing. Each fails in one line naming the
file (and the branch and entry where it applies), with the right exit status and no output left behind."""

import shutil
import struct
import subprocess
import sys

import pytest
import uproot

from faults import MUONS_FILE, NANO_FILE, assert_nothing_under, assert_one_line_error, run_limited

# A TTree with a TString branch, uncompressed, written by PyROOT in its own process (this one keeps ROOT unloaded).
WRITE_TSTRING_TREE = """
import sys, ROOT
f = ROOT.TFile(sys.argv[1], "RECREATE", "", 0)
t = ROOT.TTree("Events", "")
s = ROOT.TString()
x = ROOT.std.vector("float")()
t.Branch("tstr", s, 32000, 0)
t.Branch("x", x)
t.SetAutoFlush(50)
for i in range(200):
    s.Form("t%d" % i)
    x.clear()
    x.push_back(i)
    t.Fill()
t.Write()
f.Close()
"""


def assert_error(result, *fragments, code):
    """assert_one_line_error, after the lines of ROOT's decompressors: they print their errors ("R__unzip: error -3
    in inflate", "Error in unzip ZSTD") straight to stderr, past the error handler that lanes installs."""
    result.stderr = "\n".join(line for line in result.stderr.splitlines()
                              if not line.startswith(("R__unzip:", "Error in unzip")))
    assert_one_line_error(result, *fragments, code=code)


def tstring_tree(path):
    subprocess.run([sys.executable, "-c", WRITE_TSTRING_TREE, str(path)], check=True, capture_output=True)
    return path


def fatal_file(path):
    """A file whose first TString says it is 2^31-1 characters long: reading it makes ROOT call Fatal in
    TString::Clobber ("capacity too large"), which aborts a process that keeps ROOT's default error handler."""
    tstring_tree(path)
    with uproot.open(path) as file:
        seek = int(file["Events"]["tstr"].member("fBasketSeek")[0])
    data = bytearray(path.read_bytes())
    key_length = struct.unpack(">H", data[seek + 14:seek + 16])[0]
    start = seek + key_length  # the first entry: a length byte and the characters ("\x02t0")
    assert data[start:start + 3] == b"\x02t0"
    data[start:start + 5] = b"\xff\x7f\xff\xff\xff"  # 255: a 4-byte length follows
    path.write_bytes(bytes(data))
    return path


def corrupt_record(source, path, name):
    """A copy of `source` whose record of key `name` (a TTree, with its baskets) has its payload overwritten."""
    shutil.copy(source, path)
    with uproot.open(source) as file:
        key = file.key(name)
        seek, key_length, size = key.fSeekKey, key.fKeylen, key.fNbytes
    with open(path, "r+b") as f:
        f.seek(seek + key_length + 9)  # past the key and the compression header
        f.write(b"\x5a" * (size - key_length - 9))
    return path


@pytest.mark.parametrize("options", [{"handles": "shared"}, {}], ids=["shared", "lane"])
def test_root_fatal_while_reading_is_an_error(tmp_path, options):
    bad = fatal_file(tmp_path / "fatal.root")
    out = tmp_path / "out.root"
    extra = "".join(f",{k}={v}" for k, v in options.items())
    result = run_limited("run", "--source", f"root:file={bad}{extra}", "-t", "2", "--output", f"root:file={out}",
                         cwd=tmp_path)
    assert_one_line_error(result, f"'{bad}'", "branch 'tstr'", "entry 0", "TString::Clobber", code=1)
    assert result.report["failed"] is True
    assert_nothing_under(out)


@pytest.mark.parametrize("handles", ["shared", "lane"])
def test_a_branch_is_not_read_again_after_roots_fatal_error(tmp_path, handles):
    # ROOT's fatal error leaves the branch, and the object it was filling, half-way: reading the branch again
    # crashed in 1 of ~160 jobs. With --on-error skip every later event that handle reads fails on it instead
    # (with handles=lane, the other lane's copy of the file reads the runs it claims).
    bad = fatal_file(tmp_path / "fatal.root")
    result = run_limited("run", "--source", f"root:file={bad},handles={handles}", "-t", "2", "--on-error", "skip",
                         "--output", "dummy", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    events, skipped = result.report["events"], result.report["events_skipped"]
    assert events + skipped == 200 and skipped >= 1
    if handles == "shared":
        assert events == 0


def test_root_fatal_in_a_later_file_names_that_file(tmp_path):
    good = tstring_tree(tmp_path / "good.root")
    bad = fatal_file(tmp_path / "fatal.root")
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", f"root:file={good},file={bad},handles=lane", "-t", "4",
                         "--output", f"root:file={out}", cwd=tmp_path)
    assert_one_line_error(result, f"'{bad}'", "branch 'tstr'", "entry 0", code=1)
    assert str(good) not in result.stderr
    assert_nothing_under(out)


def test_root_fatal_in_a_multi_process_job(tmp_path):
    bad = fatal_file(tmp_path / "fatal.root")
    out = tmp_path / "out.root"
    # handles=shared: with a handle per lane, a worker whose first entry comes after the corrupt one crashes
    # inside ROOT (TBufferFile::ReadTString, no Fatal to turn into an error): 3 in 10 jobs with main's binary.
    result = run_limited("run", "--source", f"root:file={bad},handles=shared", "--processes", "2", "--output",
                         f"root:file={out}", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "aborting" not in result.stderr and "stack trace" not in result.stderr.lower(), result.stderr
    assert f"'{bad}'" in result.stderr and "branch 'tstr'" in result.stderr
    assert_nothing_under(out)


def test_root_fatal_unread_branch_is_harmless(tmp_path):
    # The corrupt branch is left out: the job reads the rest of the file, all of it.
    bad = fatal_file(tmp_path / "fatal.root")
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", f"root:file={bad},exclude=tstr", "--output", f"root:file={out}",
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == 200
    with uproot.open(out) as file:
        assert file["Events"].num_entries == 200


def test_corrupt_tree_metadata_says_it_cannot_be_read(tmp_path):
    bad = corrupt_record(NANO_FILE, tmp_path / "corrupt.root", "Events")
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", f"root:file={bad}", "--output", f"root:file={out}", cwd=tmp_path)
    assert_error(result, f"'{bad}'", "TTree 'Events' cannot be read", code=2)
    assert "its trees" not in result.stderr  # no "has no TTree 'Events' (its trees: Events)"
    assert_nothing_under(out)


def test_corrupt_tree_metadata_in_a_later_file(tmp_path):
    bad = corrupt_record(NANO_FILE, tmp_path / "corrupt.root", "Events")
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", f"root:file={NANO_FILE},file={bad}", "--output", f"root:file={out}",
                         cwd=tmp_path)
    assert_error(result, f"'{bad}'", "TTree 'Events' cannot be read", code=1)
    assert_nothing_under(out)


def test_corrupt_rntuple_anchor_says_it_cannot_be_read(tmp_path):
    bad = corrupt_record(MUONS_FILE, tmp_path / "corrupt.root", "Events")
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", f"rntuple:file={bad}", "--output", f"root:file={out}", cwd=tmp_path)
    assert_error(result, f"'{bad}'", "RNTuple 'Events' cannot be read", code=2)
    assert "its RNTuples" not in result.stderr
    assert_nothing_under(out)


@pytest.mark.parametrize("part", ["Header", "Footer"])
def test_corrupt_rntuple_metadata_says_it_cannot_be_read(tmp_path, part):
    """The anchor reads, but the header or footer it points to is garbage: one line that says the RNTuple cannot be
    read, and why, never that the file has no RNTuple of that name."""
    with uproot.open(MUONS_FILE) as file:
        anchor = file["Events"]
        seek, size = anchor.member(f"fSeek{part}"), anchor.member(f"fNBytes{part}")
    data = bytearray(MUONS_FILE.read_bytes())
    data[seek + 10:seek + size - 10] = b"\x5a" * (size - 20)
    bad = tmp_path / "corrupt.root"
    bad.write_bytes(bytes(data))
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", f"rntuple:file={bad}", "--output", f"root:file={out}", cwd=tmp_path)
    assert_error(result, f"'{bad}'", "cannot read RNTuple 'Events'", "unzipping", code=2)
    assert "its RNTuples" not in result.stderr and "has no RNTuple" not in result.stderr
    assert_nothing_under(out)


@pytest.mark.parametrize("plugin, path, wanted", [
    ("root", MUONS_FILE, "ROOT::RNTuple, not TTree"),
    ("rntuple", NANO_FILE, "TTree, not ROOT::RNTuple"),
], ids=["tree-is-an-rntuple", "rntuple-is-a-tree"])
def test_key_of_another_class(tmp_path, plugin, path, wanted):
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", f"{plugin}:file={path}", "--output", f"root:file={out}", cwd=tmp_path)
    assert_one_line_error(result, f"'{path}'", f"'Events' is of class {wanted}", code=2)
    assert_nothing_under(out)


@pytest.mark.parametrize("plugin, path, option", [
    ("root", NANO_FILE, "branches=Jet_ptt"),
    ("root", NANO_FILE, "exclude=Muon_*,exclude=Jet_btagg*"),
    ("rntuple", MUONS_FILE, "fields=Muon_ptt"),
    ("rntuple", MUONS_FILE, "exclude=nElectron"),
], ids=["root-branches", "root-exclude", "rntuple-fields", "rntuple-exclude"])
def test_pattern_that_matches_nothing(tmp_path, plugin, path, option):
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", f"{plugin}:file={path},{option}", "--output", f"root:file={out}",
                         cwd=tmp_path)
    pattern = option.split(",")[-1]
    assert_one_line_error(result, f"'{path}'", f"{pattern} matches no", code=2)
    assert_nothing_under(out)
