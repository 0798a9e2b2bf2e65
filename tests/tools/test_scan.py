"""`lanes scan` (lanes.tools.scan): the grid and procedures directly, then small real scans through the command."""

import csv
import json
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BINARY, REPO

sys.path.insert(0, str(REPO / "tests" / "root"))
sys.path.insert(0, str(REPO / "tests" / "faults"))

from lanes.tools import scan as scan_tool  # noqa: E402
from lanes.tools.lanes_scan import grid, plots, runner, table  # noqa: E402
from lanes.tools.lanes_scan.grid import Axis, Scan, ScanError  # noqa: E402
from faults import run_limited  # noqa: E402
from rootio import wait_for  # noqa: E402

EMPTY = ["--source", "empty", "--output", "dummy"]


def build(*argv):
    return scan_tool.build(["--lanes", str(BINARY), "-o", "unused", *argv])[0]


def lanes_scan(directory, *args, timeout=120):
    return subprocess.run([str(BINARY), "scan", "-o", str(directory), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def read_table(directory):
    with open(directory / "table.csv") as table:
        return list(csv.DictReader(table))


def started_runs(directory):
    return [json.loads(line)["run"] for line in (directory / "log.jsonl").read_text().splitlines()]


def assert_one_line_error(completed, *words):
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanes: error: "), completed.stderr
    for word in words:
        assert word in lines[0]


# ---- the grid and the procedures, in Python


def test_axes_map_onto_run_arguments():
    fixed = grid.parse_run_arguments(["--source", "root:file=a.root,repeat=200", "--output=root:file=o.root",
                                      "--module", "producer:label=slow,time=0.1", "--module", "fault:at=3"])
    assert grid.apply_axis(fixed, Axis.parse("output=parallel-root"), "parallel-root")[1] == [
        "--output", "parallel-root:file=o.root"]
    assert grid.apply_axis(fixed, Axis.parse("output.compression=lz4"), "lz4")[1] == [
        "--output", "root:file=o.root,compression=lz4"]
    assert grid.apply_axis(fixed, Axis.parse("source.repeat=50"), "50")[0] == [
        "--source", "root:file=a.root,repeat=50"]
    assert grid.apply_axis(fixed, Axis.parse("module[slow].time=0.2"), "0.2")[2] == [
        "--module", "producer:label=slow,time=0.2"]
    assert grid.apply_axis(fixed, Axis.parse("module[fault].at=9"), "9")[3] == ["--module", "fault:at=9"]
    assert grid.apply_axis(fixed, Axis.parse("module[1].action=abort"), "abort")[3] == [
        "--module", "fault:at=3,action=abort"]
    assert grid.apply_axis(fixed, Axis.parse("output=dummy:ready=true"), "dummy:ready=true")[1] == [
        "--output", "dummy:ready=true"]
    assert grid.apply_axis([], Axis.parse("output=dummy"), "dummy") == [["--output", "dummy"]]
    assert grid.apply_axis(fixed, Axis.parse("accel-strategy=sync-single"), "sync-single")[-1] == [
        "--accel-strategy", "sync-single"]


def test_values_with_commas_go_in_double_quotes_as_in_a_spec():
    spec = grid.Spec.parse(r'root:file="a,b=c ü.root",compression=lz4,title="say \"hi\", \\o/"')
    assert spec.options == [["file", "a,b=c ü.root"], ["compression", "lz4"], ["title", 'say "hi", \\o/']]
    assert grid.Spec.parse(str(spec)).options == spec.options
    assert str(grid.Spec("root", [["file", "plain=1.root"]])) == "root:file=plain=1.root"
    axis = Axis.parse('output.file="x,y.root",z.root')
    assert axis.values == ('"x,y.root"', "z.root")
    fixed = grid.parse_run_arguments(["--output", "root:file=o.root"])
    assert grid.apply_axis(fixed, axis, axis.values[0]) == [["--output", 'root:file="x,y.root"']]
    assert Axis.parse('output=root:file="a,b.root",dummy').values == ('root:file="a,b.root"', "dummy")
    with pytest.raises(ScanError, match="does not close"):
        Axis.parse('output.file="x,y.root')


@pytest.mark.parametrize("text, words", [
    ("colour=red", "unknown axis"), ("threads=1,,2", "empty value"), ("threads=", "empty value"),
    ("threads=0", "positive integer"), ("threads=two", "positive integer"), ("output=a,a", "twice"),
    ("threads", "NAME=VALUE"),
])
def test_bad_axes_are_refused(text, words):
    with pytest.raises(ScanError, match=words):
        Axis.parse(text)


def test_an_axis_must_name_something_the_run_arguments_have():
    with pytest.raises(ScanError, match="no --module 'x'"):
        build("--vary", "module[x].time=1", "--", *EMPTY)
    with pytest.raises(ScanError, match="no --waiter"):
        build("--vary", "waiter.scale=1", "--", *EMPTY)
    with pytest.raises(ScanError, match="also give"):
        build("--vary", "threads=1,2", "--", "-t", "2", *EMPTY)
    with pytest.raises(ScanError, match="--report"):
        build("--", "--report", "r.json", *EMPTY)


def test_procedures_set_events_and_copies():
    fixed = Scan(grid.parse_run_arguments(EMPTY), [Axis.parse("threads=1,2")], "fixed", 100)
    per_thread = Scan(grid.parse_run_arguments(EMPTY + ["-p", "2"]), [Axis.parse("threads=1,2")], "per-thread", 100)
    fill = Scan(grid.parse_run_arguments(EMPTY), [Axis.parse("threads=1,2,4")], "fill-machine", 100, cores=4)
    assert [fixed.plan(p)["events"] for p in fixed.points()] == [100, 100]
    assert [per_thread.plan(p)["events"] for p in per_thread.points()] == [200, 400]  # x threads x processes
    assert [(fill.plan(p)["copies"], fill.plan(p)["events"]) for p in fill.points()] == [(4, 100), (2, 100), (1, 100)]
    assert [fill.plan(p)["threads"] for p in fill.points()] == [1, 2, 4]


def test_runs_are_interleaved_and_copies_write_their_own_files(tmp_path):
    scan = Scan(grid.parse_run_arguments(["--source", "empty", "--output", "root:file=sub/out.root", "--trace",
                                          "t.json"]),
                [Axis.parse("threads=1,2"), Axis.parse("output.compression=lz4,zstd")], "fill-machine", 10,
                repeat=2, cores=2)
    runs = runner.plan_runs(scan, Path("lanes"), tmp_path)
    assert [r.id for r in runs] == [f"p00{p}-r{r}" for r in (1, 2) for p in (1, 2, 3, 4)]
    first = runs[0].commands  # threads 1 on 2 cores: two copies
    assert len(first) == 2
    assert f"root:file={tmp_path}/files/p001-r1-c1-out.root,compression=lz4" in first[0]
    assert f"root:file={tmp_path}/files/p001-r1-c2-out.root,compression=lz4" in first[1]
    assert first[1][-2:] == ["--report", str(tmp_path / "runs" / "p001-r1-c2.json")]
    assert str(tmp_path / "runs" / "p001-r1-c2.trace.json") in first[1]


def test_multi_process_reports_give_the_parents_merged_cpu_and_total_pss(tmp_path):
    worker = {"threads": 2, "cpu_user_s": 1.5, "cpu_sys_s": 0.5}
    report = {"events": 100, "events_per_s": 50.0, "wall_s": 2.0, "workers": [{"report": worker}, {"report": worker}],
              "threads": 4, "cpu_user_s": 3.0, "cpu_sys_s": 1.0,
              "memory": {"total_rss_bytes": 300, "total_pss_bytes": 200, "peak_total_pss_bytes": 250}}
    figures = table.combine([table.copy_figures(report)])
    assert figures["cpu_efficiency"] == pytest.approx(4.0 / (4 * 2.0))
    assert (figures["peak_rss_bytes"], figures["total_pss_bytes"]) == (300, 250)
    summary = [{"point": f"p00{p}", "axes": {"processes": p, "output": o}, "threads": 1, "processes": p,
                "events_per_s": {"median": 10.0 * p, "min": 9.0 * p, "max": 11.0 * p}, "cpu_efficiency": None,
                "total_pss_bytes": {"median": 2e8 * p, "min": 2e8 * p, "max": 2e8 * p}}
               for p in (1, 2) for o in ("root", "rntuple")]
    written = plots.plot(summary, tmp_path / "plots")
    assert {path.name for path in written} == {"rate.png", "rate.svg", "pss.png", "pss.svg"}
    assert all(path.stat().st_size > 0 for path in written)


def test_scan_files_resolve_paths_and_refuse_unknown_keys(tmp_path):
    (tmp_path / "s.toml").write_text('menu = "../m.toml"\nargs = ["--source", "root:file=./a.root"]\n'
                                     'repeat = 2\n[axes]\nthreads = [1, 2]\n"output.level" = [1, 5]\n')
    scan = build(str(tmp_path / "s.toml"), "--repeat", "3", "--", "--output", "root:file=o.root")
    assert grid.flatten(scan.fixed) == ["--menu", str(tmp_path.parent / "m.toml"), "--source",
                                        f"root:file={tmp_path}/a.root", "--output", "root:file=o.root"]
    assert (scan.repeat, len(scan.points())) == (3, 4)
    (tmp_path / "bad.toml").write_text("repeats = 2\n")
    with pytest.raises(ScanError, match="unknown key 'repeats'"):
        build(str(tmp_path / "bad.toml"))


@pytest.mark.parametrize("name, points, repeat", [("threads-outputs", 6, 3), ("top-speed", 2, 3),
                                                  ("repeated-events", 4, 3), ("serialization", 2, 3),
                                                  ("serialization-one-event", 2, 3)])
def test_example_scan_files_load(name, points, repeat):
    scan = build(str(REPO / "examples" / "scans" / f"{name}.toml"))
    assert (len(scan.points()), scan.repeat) == (points, repeat)


# ---- real scans through `lanes scan`


def test_a_small_scan_writes_reports_table_summary_and_plots(tmp_path):
    out = tmp_path / "scan"
    completed = lanes_scan(out, "--vary", "threads=1,2", "--vary", "output.ready=false,true", "--repeat", "2",
                           "--events", "50", "--", *EMPTY)
    assert completed.returncode == 0, completed.stderr
    rows = read_table(out)
    assert len(rows) == 8
    for column in ("run", "point", "repeat", "threads", "output.ready", "events_per_s", "wall_s", "cpu_efficiency",
                   "peak_rss_bytes", "total_pss_bytes", "failed", "error"):
        assert column in rows[0]
    assert {(r["threads"], r["output.ready"]) for r in rows} == {(t, o) for t in "12" for o in ("false", "true")}
    assert all(r["failed"] == "False" and r["events"] == "50" for r in rows)
    assert started_runs(out) == [f"p00{p}-r{r}" for r in (1, 2) for p in (1, 2, 3, 4)]  # A B C D A B C D
    summary = json.loads((out / "summary.json").read_text())["points"]
    for point in summary:
        rates = [float(r["events_per_s"]) for r in rows if r["point"] == point["point"]]
        assert point["events_per_s"] == pytest.approx({"median": statistics.median(rates), "min": min(rates),
                                                       "max": max(rates)})
    for name in ("rate", "cpu_efficiency", "speedup"):
        for suffix in ("png", "svg"):
            assert (out / "plots" / f"{name}.{suffix}").stat().st_size > 0
    manifest = json.loads((out / "manifest.json").read_text())
    provenance = manifest["provenance"]  # once per scan, as it started
    assert provenance["command"] == ["lanes", "scan", "-o", str(out), "--vary", "threads=1,2", "--vary",
                                     "output.ready=false,true", "--repeat", "2", "--events", "50", "--", *EMPTY]
    for run in manifest["runs"]:
        meta = json.loads((out / "runs" / f"{run['run']}.meta.json").read_text())
        assert meta["commands"] == run["commands"] and meta["status"] == "ok"
        report = json.loads((out / "runs" / f"{run['run']}.json").read_text())
        assert report["events"] == 50
        assert report["provenance"]["command"] == run["commands"][0]  # and once per run
        for key in ("host", "cpu_model", "cores", "git_commit", "lanes_version"):
            assert report["provenance"][key] == provenance[key], key


def test_an_interrupted_or_damaged_scan_resumes_only_what_is_missing(tmp_path):
    out = tmp_path / "scan"
    args = ["--vary", f"events=20,{10**15}", "--", *EMPTY]  # the second point runs until stopped
    process = subprocess.Popen([str(BINARY), "scan", "-o", str(out), *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    wait_for(lambda: (out / "log.jsonl").exists() and len(started_runs(out)) == 2, 60, "the second run")
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr
    assert [r["run"] for r in read_table(out)] == ["p001-r1"]  # what finished is tabulated
    # Resumed with the infinite point made finite would be another scan: refused, unless forced.
    refused = lanes_scan(out, "--vary", "events=20,30", "--", *EMPTY)
    assert_one_line_error(refused, "different scan")
    forced = lanes_scan(out, "--vary", "events=20,30", "--repeat", "2", "--force", "--", *EMPTY)
    assert forced.returncode == 0, forced.stderr
    assert len(started_runs(out)) == 4
    (out / "runs" / "p002-r1.json").unlink()
    resumed = lanes_scan(out, "--vary", "events=20,30", "--repeat", "2", "--", *EMPTY)
    assert resumed.returncode == 0, resumed.stderr
    assert started_runs(out)[4:] == ["p002-r1"]
    assert len(read_table(out)) == 4


def test_a_signal_as_the_copies_start_stops_every_copy(tmp_path, monkeypatch):
    """A SIGINT while a run's copies start (here, as the last has started) waits until they all have, then stops
    them all: none is left running after the scan, in the session of its own that keeps it from the terminal."""
    scan = Scan(grid.parse_run_arguments(EMPTY), [Axis.parse("threads=1")], "fill-machine", 10**15, cores=2)
    [run] = runner.plan_runs(scan, BINARY, tmp_path)
    (tmp_path / "runs").mkdir()
    started = []
    start_each = runner._start_each

    def start_then_interrupt(run, cwd, processes):
        start_each(run, cwd, processes)
        started.extend(processes)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(runner, "_start_each", start_then_interrupt)
    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    runner.raise_on_signals()
    try:
        with pytest.raises(KeyboardInterrupt):
            runner.execute(run, tmp_path)
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
    assert len(started) == 2
    assert [process.poll() is not None for process in started] == [True, True]


def test_a_copy_that_cannot_start_stops_those_started_before_it(tmp_path, monkeypatch):
    scan = Scan(grid.parse_run_arguments(EMPTY), [Axis.parse("threads=1")], "fill-machine", 10**15, cores=2)
    [run] = runner.plan_runs(scan, BINARY, tmp_path)
    (tmp_path / "runs").mkdir()
    run.commands[1:] = [[str(tmp_path / "no-such-lanes")]]  # the second copy's program is missing
    started = []
    start_each = runner._start_each

    def start_and_keep(run, cwd, processes):
        started.append(processes)
        start_each(run, cwd, processes)

    monkeypatch.setattr(runner, "_start_each", start_and_keep)
    with pytest.raises(OSError):
        runner.execute(run, tmp_path)
    [processes] = started
    assert len(processes) == 1 and processes[0].poll() is not None


def test_a_failed_point_is_recorded_and_the_scan_goes_on(tmp_path):
    out = tmp_path / "scan"
    # once=PATH injects the fault only where PATH does not exist yet.
    fresh, existing = tmp_path / "fresh", tmp_path / "existing"
    existing.touch()
    completed = lanes_scan(out, "--vary", f"module[fault].once={fresh},{existing}", "--events", "10", "--", *EMPTY,
                           "--module", "fault:at=3")
    assert completed.returncode == 1
    rows = read_table(out)
    assert [(r["module[fault].once"], r["failed"]) for r in rows] == [(str(fresh), "True"), (str(existing), "False")]
    assert "fault injected at event 3" in rows[0]["error"]
    assert "p001-r1" in completed.stderr and "1 of 2 runs failed" in completed.stderr
    summary = json.loads((out / "summary.json").read_text())["points"]
    assert summary[0]["failed_runs"] == 1 and summary[0]["events_per_s"] is None


def test_fill_machine_runs_concurrent_copies_and_sums_their_rates(tmp_path):
    out = tmp_path / "scan"
    completed = lanes_scan(out, "--procedure", "fill-machine", "--cores", "2", "--vary", "threads=1",
                           "--events", "30", "--", *EMPTY)
    assert completed.returncode == 0, completed.stderr
    copies = [json.loads((out / "runs" / f"p001-r1-c{k}.json").read_text()) for k in (1, 2)]
    [row] = read_table(out)
    assert (row["copies"], row["events"]) == ("2", "60")
    assert float(row["events_per_s"]) == pytest.approx(sum(c["events_per_s"] for c in copies))
    assert float(row["wall_s"]) == pytest.approx(max(c["wall_s"] for c in copies))
    assert (out / "plots" / "rate.png").stat().st_size > 0  # threads does not vary: bars


def test_a_full_disk_fails_the_scan_in_one_line_and_leaves_no_half_plot(tmp_path):
    completed = run_limited("scan", "-o", tmp_path / "scan", "--vary", "threads=1", "--", *EMPTY, cwd=tmp_path,
                            file_size_limit=9000, report=False)  # room for the reports and tables, not a plot
    assert completed.returncode == 1
    assert completed.stderr.strip().splitlines()[-1].startswith("lanes: error: ")
    assert "File too large" in completed.stderr and "rate.png" in completed.stderr
    assert read_table(tmp_path / "scan")[0]["failed"] == "False"
    assert list((tmp_path / "scan" / "plots").iterdir()) == []


@pytest.mark.parametrize("args, words", [
    (["--vary", "colour=red", "--", *EMPTY], ["unknown axis 'colour'"]),
    (["--vary", "threads=1,,2", "--", *EMPTY], ["empty value"]),
    (["--vary", "threads=1", "--procedure", "sometimes"], ["procedure"]),
    (["--vary", "threads=1", "--frobnicate"], ["unrecognized arguments: --frobnicate"]),
    (["--repeat", "0", "--", *EMPTY], ["repeat"]),
    (["--vary", "threads=1", "--vary", "threads=2", "--", *EMPTY], ["threads is given twice"]),
    (["--", "--source"], ["--source needs a value"]),
    (["--plugin-library", "libnowhere.so", "--", *EMPTY], ["plugin library 'libnowhere.so' is not found"]),
])
def test_bad_arguments_are_refused_in_one_line_before_anything_runs(tmp_path, args, words):
    assert_one_line_error(lanes_scan(tmp_path / "scan", *args), *words)
    assert not (tmp_path / "scan").exists()


def test_a_scan_file_with_an_unknown_key_is_refused(tmp_path):
    (tmp_path / "s.toml").write_text("[axes]\nthreads = [1]\n[job]\nthreads = 2\n")
    assert_one_line_error(lanes_scan(tmp_path / "scan", tmp_path / "s.toml"), "unknown key 'job'")
    assert not (tmp_path / "scan").exists()


def test_help_documents_the_grammar_and_examples():
    completed = subprocess.run([str(BINARY), "scan", "--help"], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0
    for words in ("--vary", "output.compression", "fill-machine", "per-thread", "examples:"):
        assert words in completed.stdout
