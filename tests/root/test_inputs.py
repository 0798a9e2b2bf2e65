"""Source options that change which events are read: repeat=N, several files, per-lane handles."""

import os
from collections import Counter

import pytest

from rootio import MUONS, NANO, assert_distinct_ids, diff_records, output_details, read_events, read_input


def hashable(value):
    """A value usable in a Counter (lists become tuples, dicts sorted item tuples)."""
    if isinstance(value, list):
        return tuple(hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, hashable(v)) for k, v in value.items()))
    return value


def test_repeat_cycles_the_cached_events(tmp_path, lanes):
    out = tmp_path / "out.root"
    result = lanes("run", "--source", NANO.spec(repeat=200), "-n", "600", "-t", "2", "--output", f"root:file={out}")
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == 600
    assert output_details(result.report, "root")["events_written"] == 600
    expected = read_input(NANO)
    output = read_events(out)
    assert len(output) == 600
    assert_distinct_ids(output)
    # Position p of the output ordered by event number is cycle p // 200 of input event p % 200. (The input's
    # event numbers increase in file order.)
    assert expected.ids == sorted(expected.ids, key=lambda i: i[2])
    ordered = sorted(output.all_records, key=lambda item: item[0][2])
    assert [event_id for event_id, _ in ordered[:200]] == expected.ids
    cycled_numbers = [event_id[2] for event_id, _ in ordered[200:]]
    assert cycled_numbers[0] > expected.ids[-1][2]
    assert cycled_numbers == list(range(cycled_numbers[0], cycled_numbers[0] + 400)), "not consecutive"
    problems = []
    for position, (event_id, record) in enumerate(ordered):
        problems += diff_records(record, expected.all_records[position % 200][1], event_id)
    assert not problems, "\n".join(problems[:10])
    # The same without relying on event numbers: every Jet_pt list three times as often as in the input.
    jets = Counter(hashable(r["Jet_pt"]) for _, r in output.all_records)
    input_jets = Counter(hashable(r["Jet_pt"]) for _, r in expected.all_records)
    assert jets == Counter({jet_pts: 3 * n for jet_pts, n in input_jets.items()})


def list_file(tmp_path, input):
    """A files=LIST file naming `input` twice: once absolute, once relative to the list (through a link), with a
    comment and a blank line."""
    os.symlink(input.path, tmp_path / "link.root")
    listing = tmp_path / "inputs.txt"
    listing.write_text(f"# the same file twice\n{input.path}\n\nlink.root\n")
    return listing


@pytest.mark.parametrize(
    "input, how",
    [(NANO, "file=A,file=A"), (NANO, "files=LIST"), (NANO, "handles=lane"), (NANO, "handles=lane,chunk=7"),
     (MUONS, "file=A,file=A"), (MUONS, "files=LIST"), (MUONS, "handles=lane"), (MUONS, "handles=lane,chunk=7")],
    ids=lambda p: p if isinstance(p, str) else p.name,
)
def test_the_same_file_twice(tmp_path, lanes, input, how):
    paths, options = [input.path, input.path], {}
    if how == "files=LIST":
        paths, options = [], {"files": list_file(tmp_path, input)}
    elif how.startswith("handles=lane"):
        # Lanes take runs of `chunk` entries (default: a cluster); 7 ends runs inside files and read-ahead windows.
        options = dict(option.split("=") for option in how.split(","))
    source = input.spec(paths=paths, **options)
    out = tmp_path / "out.root"
    result = lanes("run", "--source", source, "-n", "0", "-t", "2", "--output", f"root:file={out}")
    assert result.returncode == 0, result.stderr
    expected = read_input(input)
    n = len(expected)
    assert result.report["events"] == 2 * n
    assert output_details(result.report, "root")["events_written"] == 2 * n
    output = read_events(out)
    assert len(output) == 2 * n
    problems = []
    if input is NANO:
        # The file's own ids: each appears twice, both times with the input's values.
        assert Counter(output.ids) == Counter({i: 2 for i in expected.ids})
        for event_id, record in output.all_records:
            problems += diff_records(record, expected.records[event_id], event_id)
    else:
        # Ids (1, 1, entry + 1) with entries counted over both files: entry k of the second file is entry n + k.
        assert sorted(output.ids) == [(1, 1, e) for e in range(1, 2 * n + 1)]
        for (run, lumi, event), record in output.records.items():
            problems += diff_records(record, expected.records[(run, lumi, (event - 1) % n + 1)], (run, lumi, event))
    assert not problems, "\n".join(problems[:10])


def test_imt_keeps_roots_tree_cache_and_reads_the_same_values(tmp_path, lanes):
    # The default has no TTreeCache for a file on local storage; imt=true decompresses in one, so it keeps ROOT's.
    out = tmp_path / "out.root"
    result = lanes("run", "--source", NANO.spec(imt="true"), "-n", "0", "-t", "2", "--output", f"root:file={out}")
    assert result.returncode == 0, result.stderr
    assert result.report["source"]["tree_cache"] == "ROOT's automatic size"
    expected, output = read_input(NANO), read_events(out)
    assert Counter(output.ids) == Counter(expected.ids)
    problems = []
    for event_id, record in output.records.items():
        problems += diff_records(record, expected.records[event_id], event_id)
    assert not problems, "\n".join(problems[:10])
