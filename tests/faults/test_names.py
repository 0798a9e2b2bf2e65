"""Paths that hold a comma, an equals sign, spaces and non-ASCII letters. A SPEC gives such a value in double quotes
(file="a,b.root"); a menu, a file list and `lanes scan --vary` take the same paths. Every output writes one, every
source reads it back (one file, and through files=LIST), and a quote left open or followed by more text is a one-line
error."""

import json
import subprocess

import pytest

from faults import BINARY, assert_one_line_error, event_count, run_limited

# A directory and a file name with every character a SPEC could trip on, but the quote itself.
DIRECTORY = "in, x=y ü"
NAME = "out, a=b é"
EVENTS = 12
SOURCE = ["--source", "test-products", "-n", EVENTS, "-t", 2]
# Each output, the extension of its file, and the source that reads it back.
KINDS = {
    "root": ("root", "root"),
    "parallel-root": ("root", "root"),
    "rntuple": ("root", "rntuple"),
    "rntuple-parallel": ("root", "rntuple"),
    "root-events": ("root", "root-events"),
    "pds": ("pds", "pds"),
    "hdf5": ("h5", "hdf5"),
    "textdump": ("txt", None),
}


def path_for(tmp_path, kind):
    directory = tmp_path / DIRECTORY
    directory.mkdir(exist_ok=True)
    return directory / f"{NAME}.{KINDS[kind][0]}"


def events_read(tmp_path, source):
    result = run_limited("run", "--source", source, "-n", 0, "--output", "dummy", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return result.report["events"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_output_writes_a_quoted_path_that_its_source_reads_back(tmp_path, kind):
    path = path_for(tmp_path, kind)
    result = run_limited("run", *SOURCE, "--output", f'{kind}:file="{path}"', cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    details = next(m["details"] for m in result.report["modules"] if m["label"] == kind)
    assert (details["file"], details["committed"], details["events_written"]) == (str(path), True, EVENTS)
    assert path.is_file() and details["bytes"] == path.stat().st_size
    assert f"{EVENTS} events written to {path} (" in result.stdout
    reader = KINDS[kind][1]
    if reader is None:
        assert sum(line.startswith("event ") for line in path.read_text().splitlines()) == EVENTS
        return
    if kind in ("root", "rntuple"):
        assert event_count(path) == EVENTS  # uproot, an independent reader
    assert events_read(tmp_path, f'{reader}:file="{path}"') == EVENTS
    if reader != "pds":  # pds reads one file=
        listing = tmp_path / DIRECTORY / "list, n=1 ä.txt"
        listing.write_text(f"{path.name}\n")  # relative to the list's directory
        assert events_read(tmp_path, f'{reader}:files="{listing}"') == EVENTS


def test_a_menu_takes_such_paths_as_toml_strings(tmp_path):
    path = path_for(tmp_path, "root")
    menu = tmp_path / DIRECTORY / "job, v=1 ö.toml"
    menu.write_text(f'[job]\nevents = {EVENTS}\n[source]\nplugin = "test-products"\n'
                    f'[[output]]\nlabel = "out"\nplugin = "root"\nfile = "./{path.name}"\n')
    result = run_limited("run", "--menu", menu, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert event_count(path) == EVENTS


def test_a_scan_varies_such_paths_in_quotes(tmp_path):
    scan = [str(BINARY), "scan", "-o", "scan", "--keep-files", "--vary", 'output.file="x,y=1 ü.root",z.root', "--",
            *map(str, SOURCE), "--output", "root:file=out.root"]
    result = subprocess.run(scan, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "scan" / "manifest.json").read_text())
    assert [run["commands"][0][run["commands"][0].index("--output") + 1] for run in manifest["runs"]] == [
        f'root:file="{tmp_path}/scan/files/p001-r1-x,y=1 ü.root"', f"root:file={tmp_path}/scan/files/p002-r1-z.root"]
    assert event_count(tmp_path / "scan" / "files" / "p001-r1-x,y=1 ü.root") == EVENTS


@pytest.mark.parametrize("spec, fragments", [
    ('root:file="a,b.root', ["opens a quote that it does not close"]),
    ('root:file="a,b".root', ["text after the closing quote", "key=\"VALUE\""]),
    ('root:file=a,b.root', ["malformed option 'b.root'", "(expected key=value)"]),
])
def test_a_quote_left_open_or_followed_by_text_is_refused(tmp_path, spec, fragments):
    result = run_limited("run", *SOURCE, "--output", spec, cwd=tmp_path, report=False)
    assert_one_line_error(result, *fragments)
    assert not list(tmp_path.iterdir())
