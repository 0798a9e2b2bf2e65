"""The corners of the RNTuple format, generated: small RNTuples written by ROOT (tests/root/corners, a program with
classes lanes has no dictionary for), read by the `lanes` command at 2 threads with a waiter that consumes every
product: std::bitset, std::atomic, std::array, std::map, std::set and the unordered ones; nested collections and
classes without a dictionary here; an empty class, variants, one in its invalid state, one added half-way; several
pages, clusters and cluster groups, a column that changes its representation, fields added after the first cluster.
Each file reads whole, or is refused in one line naming the field lanes cannot read (and, with unreadable=skip, the
rest reads); the copies lanes writes of the fields a ROOT output can store hold what ROOT reads from the original.
NTupleCornersTest (lanes_root_tests) checks every value of every field against what was written, emulated ones too."""

import json
import subprocess

import pytest

from conftest import BINARY
from rootio import assert_clean_failure

CORNERS = BINARY.parent / "lanes_ntuple_corners"
ENTRIES = {"std": 40, "nested": 40, "variants": 40, "thrower": 3, "layout": 40}
# The field lanes cannot read here, where there is one: ROOT 6.40 would crash making it (no dictionary for the
# unordered_map, nor for the class in the variant).
UNREADABLE = {"std": ("hashed", "std::unordered_map<std::int32_t,double>"),
              "thrower": ("broken", "std::variant<std::int32_t,corners::Thrower>")}
# The fields that lanes reads through a dictionary, and a ROOT output can store.
COPIED = {"std": ["by_id", "ids", "unique"], "layout": ["number", "real", "late_scalar", "late_vector"]}


@pytest.fixture(scope="module")
def corners(tmp_path_factory):
    directory = tmp_path_factory.mktemp("corners")
    subprocess.run([CORNERS, "write", directory], check=True, timeout=120)
    return directory


def read(lanes, path, *options, output="dummy"):
    spec = ",".join([f"rntuple:file={path}", "ntuple=ntuple", *options])
    return lanes("run", "-t", "2", "-n", "0", "--source", spec, "--waiter", "busy:scale=1e-12", "--output", output)


@pytest.mark.parametrize("corner", ENTRIES)
def test_reads_whole_or_refuses_naming_the_field(lanes, corners, corner):
    path = corners / f"{corner}.root"
    result = read(lanes, path)
    if corner not in UNREADABLE:
        assert result.returncode == 0, result.stderr
        assert result.report["events"] == ENTRIES[corner]
        return
    field, type_name = UNREADABLE[corner]
    assert_clean_failure(result, f"'{path}'", f"1 selected field cannot be read here: '{field}' (its type {type_name}",
                         "it would crash", f"exclude={field},", "unreadable=skip", codes=(2,))
    for option in (f"exclude={field}", "unreadable=skip"):
        result = read(lanes, path, option)
        assert result.returncode == 0, result.stderr
        assert result.report["events"] == ENTRIES[corner]
    assert [skipped["name"] for skipped in result.report["source"]["skipped_fields"]] == [field]


def shown(path, fields, ntuple="ntuple"):
    """{field: [its value in each entry, as ROOT shows it]}, the entries in the order of their event numbers where
    the file has them (a copy's: lanes writes events as they end)."""
    entries = json.loads(subprocess.run([CORNERS, "show", path, ntuple], check=True, capture_output=True,
                                        timeout=60).stdout)
    entries.sort(key=lambda entry: entry.get("event", 0))
    return {field: [entry[field] for entry in entries] for field in fields}


@pytest.mark.parametrize("corner", COPIED)
def test_the_copy_holds_what_root_reads_from_the_original(lanes, corners, tmp_path, corner):
    copy = tmp_path / "copy.root"
    keep = ",".join(f"keep={field}" for field in COPIED[corner])
    result = read(lanes, corners / f"{corner}.root", "unreadable=skip", output=f"rntuple:file={copy},{keep}")
    assert result.returncode == 0, result.stderr
    assert shown(copy, COPIED[corner], "Events") == shown(corners / f"{corner}.root", COPIED[corner])
