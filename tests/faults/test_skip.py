"""skip-bad-files=true on the root and rntuple sources: a list with a truncated file, a file that is no ROOT file,
one without the tree and a missing one among good ones. The job goes on past each bad file, warns about it once in
one line naming it, names it in the report (JSON and text), and writes exactly the events of the good files, in
one process and in several. Without the option the first bad file is the job's error, as before."""

import shutil
from collections import Counter

import numpy as np
import pytest
import uproot

from faults import MUONS_FILE, NANO_FILE, assert_nothing_under, assert_one_line_error, read_events, run_limited

SOURCES = {
    "root": (NANO_FILE, "branches=nJet"),
    "rntuple": (MUONS_FILE, "fields=nMuon"),
}


def bad_files(directory, good):
    """A truncated copy of `good`, a text file, a ROOT file without `Events` and a path that does not exist."""
    truncated = directory / "truncated.root"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size * 2 // 3])
    text = directory / "notes.root"
    text.write_text("not a ROOT file\n")
    other = directory / "other.root"
    with uproot.recreate(other) as file:
        file["Other"] = {"x": np.arange(3, dtype=np.int32)}
    return [truncated, text, other, directory / "missing.root"]


def file_list(directory, plugin):
    """The list: a bad file first (the layout comes from the first good one), the others between two good files."""
    good, _ = SOURCES[plugin]
    local = directory / f"good{good.suffix}"
    shutil.copy(good, local)
    bad = bad_files(directory, good)
    files = [bad[0], local, *bad[1:], local]
    listing = directory / "files.txt"
    listing.write_text("".join(f"{path}\n" for path in files))
    return listing, local, bad


def spec(plugin, listing, *extra):
    return ",".join([f"{plugin}:files={listing}", SOURCES[plugin][1], *extra])


def warnings(result):
    return [line for line in result.stderr.splitlines() if line.startswith("lanes: warning: skipped ")]


@pytest.mark.parametrize("mode", ["single", "lane", "processes"])
@pytest.mark.parametrize("plugin", ["root", "rntuple"])
def test_a_job_goes_on_past_bad_files(tmp_path, plugin, mode):
    listing, good, bad = file_list(tmp_path, plugin)
    out = tmp_path / "out.root"
    extra = ["handles=lane"] if mode == "lane" else []
    processes = ["--processes", "2"] if mode == "processes" else []
    result = run_limited("run", "--source", spec(plugin, listing, "skip-bad-files=true", *extra), "-n", "0", "-t", "2",
                         *processes, "--output", f"root:file={out}", cwd=tmp_path)
    assert result.returncode == 0, result.stderr

    # Warned about once each, in order, one line naming the file and the cause.
    lines = warnings(result)
    assert len(lines) == len(bad), result.stderr
    causes = ["truncated", "not a readable ROOT file", "no " + ("TTree" if plugin == "root" else "RNTuple"),
              "does not exist"]
    for line, path, cause in zip(lines, bad, causes):
        assert f"'{path}'" in line and cause in line, (line, cause)
    assert "lanes: error" not in result.stderr

    # Named in the report, JSON and text.
    skipped = result.report["source"]["skipped_files"]
    assert [entry["file"] for entry in skipped] == [str(path) for path in bad]
    assert all(entry["error"] for entry in skipped)
    for path in bad:
        assert f"skipped {path}: " in result.stdout, result.stdout

    # Exactly the events of the good files, twice over: NanoAOD's ids, or numbers by entry of the good ones.
    if plugin == "root":
        expected = read_events(good, ids_only=True).ids * 2
    else:
        with uproot.open(good) as file:
            expected = [(1, 1, entry + 1) for entry in range(2 * file["Events"].num_entries)]
    written = read_events(out, ids_only=True).ids
    assert result.report["events"] == len(written) == len(expected)
    assert Counter(written) == Counter(expected)


@pytest.mark.parametrize("plugin", ["root", "rntuple"])
def test_without_the_option_a_bad_file_is_the_error(tmp_path, plugin):
    listing, _, bad = file_list(tmp_path, plugin)
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", spec(plugin, listing), "--output", f"root:file={out}", cwd=tmp_path)
    assert_one_line_error(result, f"'{bad[1]}'", "not a readable ROOT file", code=2)  # found by the check of every file
    assert not warnings(result)
    assert_nothing_under(out)


@pytest.mark.parametrize("plugin", ["root", "rntuple"])
def test_a_list_of_bad_files_only_is_an_error(tmp_path, plugin):
    good, _ = SOURCES[plugin]
    bad = bad_files(tmp_path, good)
    listing = tmp_path / "files.txt"
    listing.write_text("".join(f"{path}\n" for path in bad))
    out = tmp_path / "out.root"
    result = run_limited("run", "--source", spec(plugin, listing, "skip-bad-files=true"), "--output",
                         f"root:file={out}", cwd=tmp_path)
    assert_one_line_error(result, "none of the 4 input files can be read", f"'{bad[-1]}'", code=2)
    assert_nothing_under(out)


@pytest.mark.parametrize("plugin", ["root", "rntuple"])
def test_skip_bad_files_takes_only_a_boolean(tmp_path, plugin):
    good, _ = SOURCES[plugin]
    result = run_limited("run", "--source", f"{plugin}:file={good},skip-bad-files=maybe", cwd=tmp_path)
    assert_one_line_error(result, "skip-bad-files", code=2)
