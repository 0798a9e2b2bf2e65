"""Every scan file in examples/scans/ parses and validates (`lanes scan FILE --dry-run`), and its points run
with a few events each, so that a scan file the guide (docs/scans.md) shows cannot rot unnoticed."""

import json
import re
import subprocess

import pytest

from conftest import BINARY, REPO

SCAN_FILES = sorted((REPO / "examples" / "scans").glob("*.toml"))


def lanes_scan(*args, timeout=300):
    return subprocess.run([str(BINARY), "scan", *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def test_there_are_scan_files():
    assert len(SCAN_FILES) >= 5, SCAN_FILES  # the study's four figures and the ROOT outputs


@pytest.mark.parametrize("path", SCAN_FILES, ids=lambda p: p.stem)
def test_a_scan_file_validates_and_a_dry_run_prints_its_plan(path):
    completed = lanes_scan(path, "--dry-run")
    assert completed.returncode == 0, completed.stderr
    points = [line for line in completed.stdout.splitlines() if re.match(r"p\d{3}  .*\(\d+ threads, \d+ events", line)]
    runs = [line for line in completed.stdout.splitlines() if re.match(r"p\d{3}-r\d+  ", line)]
    summary = re.search(r"(\d+) points, (\d+) runs \(dry run", completed.stderr)
    assert summary and (len(points), len(runs)) == (int(summary[1]), int(summary[2])), completed.stdout
    assert len(runs) % len(points) == 0 and len(runs) >= len(points) >= 1
    for line in runs:
        assert f"{BINARY.resolve()} run " in line and " --report " in line, line
        assert "../" not in line, line  # the file's relative paths are resolved


def test_a_dry_run_writes_nothing_and_a_bad_scan_file_still_fails(tmp_path):
    completed = lanes_scan(SCAN_FILES[0], "-o", tmp_path / "scan", "--dry-run")
    assert completed.returncode == 0, completed.stderr
    assert not (tmp_path / "scan").exists()
    (tmp_path / "bad.toml").write_text('args = ["--source", "empty"]\n[axes]\nthreads = [0]\n')
    completed = lanes_scan(tmp_path / "bad.toml", "--dry-run")
    assert completed.returncode == 2 and completed.stderr.startswith("lanes: error: "), completed.stderr
    assert "positive integer" in completed.stderr


def test_without_dry_run_the_output_directory_is_required():
    completed = lanes_scan(SCAN_FILES[0])
    assert completed.returncode == 2
    assert completed.stderr.strip() == "lanes: error: the output directory is required: -o DIR"


@pytest.mark.parametrize("path", SCAN_FILES, ids=lambda p: p.stem)
def test_every_point_of_a_scan_file_runs_with_a_few_events(path, tmp_path):
    completed = lanes_scan(path, "-o", tmp_path / "scan", "--events", "2", "--repeat", "1")
    assert completed.returncode == 0, completed.stderr
    rows = json.loads((tmp_path / "scan" / "table.json").read_text())["rows"]
    assert rows and not any(row["failed"] for row in rows), rows
