"""`lanes compare A B`: two run reports (figures with ratios, modules by impact) or two scan directories (the
common points, and those whose difference exceeds the run-to-run spread); text and --json."""

import json
import subprocess

import pytest

from conftest import BINARY


def compare(*args, cwd):
    return subprocess.run([str(BINARY), "compare", *map(str, args)], capture_output=True, text=True, timeout=120,
                          cwd=cwd, stdin=subprocess.DEVNULL)


def report(rate, modules, **extra):
    return {"threads": 2, "lanes": 2, "events": 1000, "wall_s": 1000 / rate, "events_per_s": rate,
            "cpu_user_s": 1.0, "cpu_sys_s": 0.0, "cpu_efficiency": 0.5, "peak_rss_bytes": 1 << 20, "source_s": 0.1,
            "modules": [{"label": label, "plugin": "busy", "kind": "analyzer", "concurrency": "global",
                         "calls": 1000, "total_s": seconds, **extra} for label, seconds in modules.items()]}


def write_scan(directory, points):
    """A scan directory's summary.json: points as (threads, [events/s of each run])."""
    directory.mkdir()
    summary = [{"point": f"p{i:03d}", "axes": {"threads": threads}, "runs": len(rates), "failed_runs": 0,
                "events_per_s": {"median": sorted(rates)[len(rates) // 2], "min": min(rates), "max": max(rates)},
                "cpu_efficiency": None, "wall_s": None}
               for i, (threads, rates) in enumerate(points, 1)]
    (directory / "summary.json").write_text(json.dumps({"points": summary}))


def test_two_reports_side_by_side(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(report(100.0, {"x": 1.0, "y": 2.0, "gone": 0.5})))
    (tmp_path / "b.json").write_text(json.dumps(report(250.0, {"x": 1.1, "y": 0.5, "new": 0.2})))
    completed = compare("a.json", "b.json", "--json", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    figures = {f["name"]: f for f in result["figures"]}
    assert figures["events_per_s"]["a"] == 100.0 and figures["events_per_s"]["b"] == 250.0
    assert figures["events_per_s"]["ratio"] == pytest.approx(2.5)
    assert figures["wall_s"]["ratio"] == pytest.approx(0.4)
    assert [m["label"] for m in result["modules"]] == ["y", "gone", "new", "x", "(source)"]  # by |B - A|
    y = result["modules"][0]
    assert y["delta_s"] == pytest.approx(-1.5) and y["ratio"] == pytest.approx(0.25)
    assert next(m for m in result["modules"] if m["label"] == "gone")["b_s"] is None
    text = compare("a.json", "b.json", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert any(line.split()[:4] == ["events_per_s", "100.000", "250.000", "2.500"] for line in lines)
    table = lines[lines.index(next(line for line in lines if "modules by impact" in line)) + 2:]
    assert [line.split()[0] for line in table[:3]] == ["y", "gone", "new"]


def test_stall_time_counts_in_the_impact(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(report(100.0, {"x": 1.0, "y": 1.0}, stall_s=0.0)))
    b = report(100.0, {"x": 1.2, "y": 1.0}, stall_s=0.0)
    b["modules"][1]["stall_s"] = 0.9
    (tmp_path / "b.json").write_text(json.dumps(b))
    result = json.loads(compare("a.json", "b.json", "--json", cwd=tmp_path).stdout)
    assert result["modules"][0]["label"] == "y" and result["modules"][0]["delta_stall_s"] == pytest.approx(0.9)
    assert "stall 0.000 -> 0.900" in compare("a.json", "b.json", cwd=tmp_path).stdout


def test_scans_name_the_points_beyond_the_run_to_run_spread(tmp_path):
    write_scan(tmp_path / "a", [(1, [100, 102, 98]), (2, [200, 210, 190]), (4, [300])])
    write_scan(tmp_path / "b", [(1, [150, 151, 149]), (2, [205, 215, 195]), (4, [600]), (8, [700, 710])])
    completed = compare("a", "b", "--json", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    verdicts = {p["axes"]["threads"]: p["metrics"]["events_per_s"]["beyond_spread"] for p in result["points"]}
    assert verdicts == {1: True, 2: False, 4: None}  # 4: a single run has no spread
    assert result["beyond_spread"] == [{"axes": {"threads": 1}, "metric": "events_per_s", "ratio": 1.5}]
    assert result["only_b"] == [{"threads": 8}] and result["only_a"] == []
    text = compare("a", "b", cwd=tmp_path).stdout
    assert "threads=1: events_per_s x1.500" in text and "only in B: threads=8" in text


def test_real_reports_compare(tmp_path):
    for name, threads in (("one", 1), ("two", 2)):
        completed = subprocess.run([str(BINARY), "run", "-t", str(threads), "-n", "100", "--source", "empty",
                                    "--output", "dummy", "--report", f"{name}.json"], cwd=tmp_path,
                                   capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert completed.returncode == 0, completed.stderr
    result = json.loads(compare("one.json", "two.json", "--json", cwd=tmp_path).stdout)
    threads = next(f for f in result["figures"] if f["name"] == "threads")
    assert (threads["a"], threads["b"], threads["ratio"]) == (1, 2, 2.0)
    assert {m["label"] for m in result["modules"]} >= {"dummy", "(source)"}


@pytest.mark.parametrize("setup, args, words", [
    ("reports", ["a.json", "missing.json"], ["missing.json does not exist"]),
    ("mixed", ["a.json", "scan"], ["cannot compare a run", "with a scan"]),
    ("reports", ["a.json"], ["required"]),
    ("reports", ["a.json", "a.json", "--top", "0"], ["--top must be at least 1"]),
])
def test_bad_input_is_one_line(tmp_path, setup, args, words):
    (tmp_path / "a.json").write_text(json.dumps(report(100.0, {"x": 1.0})))
    if setup == "mixed":
        write_scan(tmp_path / "scan", [(1, [1.0])])
    completed = compare(*args, cwd=tmp_path)
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanes: error: ")
    for word in words:
        assert word in lines[0]


def with_provenance(report, **changes):
    provenance = {"host": "node1", "cpu_model": "Intel Xeon", "cpu_id": "family 6 model 106 stepping 6",
                  "cores": {"logical": 8, "physical": 4}, "git_commit": {"commit": "a" * 40, "dirty": False},
                  "lanes_version": "0.1.0"}
    return {**report, "provenance": {**provenance, **changes}}


@pytest.mark.parametrize("changes, said", [
    ({"host": "node2"}, "host node1 / node2"),
    ({"cpu_model": "AMD EPYC"}, "CPU model Intel Xeon / AMD EPYC"),
    ({"cpu_id": "family 6 model 143 stepping 8"}, "CPU family 6 model 106 stepping 6 / family 6 model 143 stepping 8"),
    ({"cores": {"logical": 16, "physical": 8}}, "cores 8 logical, 4 physical / 16 logical, 8 physical"),
    ({"git_commit": {"commit": "b" * 40, "dirty": False}}, "lanes commit aaaaaaaaaaaa / bbbbbbbbbbbb"),
    ({"git_commit": {"commit": "a" * 40, "dirty": True}}, "lanes commit aaaaaaaaaaaa / aaaaaaaaaaaa (with local "
                                                          "changes)"),
])
def test_a_warning_line_says_when_the_runs_ran_on_different_machines_or_builds(tmp_path, changes, said):
    base = report(100.0, {"x": 1.0})
    (tmp_path / "a.json").write_text(json.dumps(with_provenance(base)))
    (tmp_path / "b.json").write_text(json.dumps(with_provenance(base, **changes)))
    for extra in ([], ["--json"]):
        completed = compare("a.json", "b.json", *extra, cwd=tmp_path)
        assert completed.returncode == 0, completed.stderr
        lines = completed.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("lanes compare: warning: A and B ran on different machines "
                                                       "or builds (") and said in lines[0], completed.stderr
    result = json.loads(completed.stdout)
    assert len(result["provenance"]["differences"]) == 1


def test_a_report_that_does_not_say_which_cpu_is_compared_by_its_model_name(tmp_path):
    """A report of a lanes before cpu_id: the CPU within the model name is not known, so not a difference."""
    base = report(100.0, {"x": 1.0})
    older = with_provenance(base)
    del older["provenance"]["cpu_id"]
    (tmp_path / "a.json").write_text(json.dumps(older))
    (tmp_path / "b.json").write_text(json.dumps(with_provenance(base)))
    completed = compare("a.json", "b.json", "--json", cwd=tmp_path)
    assert completed.returncode == 0 and completed.stderr == "", completed.stderr
    assert json.loads(completed.stdout)["provenance"]["differences"] == []


def test_no_warning_when_both_ran_on_the_same_machine_and_build(tmp_path):
    same = with_provenance(report(100.0, {"x": 1.0}), started="2025-01-01T00:00:00Z")
    (tmp_path / "a.json").write_text(json.dumps(same))
    (tmp_path / "b.json").write_text(json.dumps({**same, "events_per_s": 120.0}))
    completed = compare("a.json", "b.json", cwd=tmp_path)
    assert completed.returncode == 0 and completed.stderr == ""


def test_a_report_without_provenance_cannot_be_told_apart(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(with_provenance(report(100.0, {"x": 1.0}))))
    (tmp_path / "b.json").write_text(json.dumps(report(100.0, {"x": 1.0})))
    completed = compare("a.json", "b.json", cwd=tmp_path)
    assert completed.stderr.splitlines() == ["lanes compare: warning: cannot tell whether A and B ran on the same "
                                             "machine and build (provenance recorded / not recorded (an older "
                                             "lanes))"]


def test_compare_writes_its_page_and_refuses_a_page_nowhere(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(with_provenance(report(100.0, {"x": 1.0}))))
    (tmp_path / "b.json").write_text(json.dumps(with_provenance(report(150.0, {"x": 0.5}), host="node2")))
    completed = compare("a.json", "b.json", "--html", "c.html", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    text = (tmp_path / "c.html").read_text()
    assert 'id="provenance-warning"' in text and "host node1 / node2" in text
    assert 'data-label="x (A)" data-total="1.0"' in text and 'data-label="x (B)" data-total="0.5"' in text
    refused = compare("a.json", "b.json", "--html", "nowhere/c.html", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stderr.startswith("lanes: error: cannot write nowhere/c.html")
    assert len(refused.stderr.splitlines()) == 1 and refused.stdout == ""
