"""`lanes run` end to end: assertions are on the JSON report and exit status."""

import json

import pytest

from conftest import REPO

MENUS = REPO / "examples"


def test_default_job_runs_and_reports(lanes):
    result = lanes("run", "-n", "40")
    assert result.returncode == 0, result.stderr
    report = result.report
    assert report["events"] == 40
    assert report["events_skipped"] == 0
    assert report["failed"] is False
    for key in ("threads", "lanes", "wall_s", "events_per_s", "cpu_user_s", "cpu_sys_s", "cpu_efficiency",
                "peak_rss_bytes", "modules", "source_s", "outputs_s", "activity", "provenance"):
        assert key in report
    labels = {m["label"] for m in report["modules"]}
    assert "out" in labels and "busy/Jet_pt" in labels  # a waiter per NanoAOD product
    assert all(m["calls"] == 40 for m in report["modules"] if m["label"].startswith("busy/"))


@pytest.mark.parametrize("processes", [[], ["-p", "2"]])
def test_the_default_jobs_summary_fits_a_screen(lanes, processes):
    """947 modules, each on a path of its own: the module table and the path report are folded, and one line says
    how to see everything; --summary full lists every module and path."""
    folded = lanes("run", "-n", "20", *processes)
    assert folded.returncode == 0, folded.stderr
    lines = folded.stdout.splitlines()
    assert len(lines) <= 60, folded.stdout
    modules, paths = len(folded.report["modules"]), len(folded.report["path_report"]["paths"])
    assert modules > 900 and paths > 900
    assert f"  ({modules + 1 - 15} more)" in folded.stdout  # the modules and the source, 15 shown
    assert f"  ({paths - 15} more paths, none rejecting or failing an event)" in lines
    assert lines[-1] == "  (folded: --summary full prints every module and path; --report FILE.json keeps them all)"
    full = lanes("run", "-n", "20", *processes, "--summary", "full")
    assert full.returncode == 0, full.stderr
    first_words = {line.split()[0] for line in full.stdout.splitlines() if line.strip()}
    assert {path["name"] for path in full.report["path_report"]["paths"]} <= first_words
    assert {module["label"] for module in full.report["modules"]} <= first_words
    assert " more)" not in full.stdout and " more paths" not in full.stdout and "folded" not in full.stdout


def test_ticker_is_quiet_when_stderr_is_not_a_terminal(lanes):
    result = lanes("run", "-n", "20")
    assert result.returncode == 0
    assert result.stderr == ""


def test_threads_and_lanes_are_recorded(lanes):
    result = lanes("run", "-t", "2", "-l", "3", "-n", "30", "--source", "empty", "--output", "dummy")
    assert result.returncode == 0, result.stderr
    assert (result.report["threads"], result.report["lanes"], result.report["events"]) == (2, 3, 30)


def test_fault_stops_the_job_with_one_line_naming_module_and_event(lanes):
    result = lanes("run", "-n", "50", "--source", "empty", "--module", "fault:at=5,action=throw", "--output", "dummy")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("lanes: error: module 'fault'")
    assert "event 1:1:5" in lines[0]
    assert result.report["failed"] is True
    assert "fault injected at event 5" in result.report["error"]
    assert result.report["events"] < 50


def test_skip_policy_counts_skipped_events(lanes):
    result = lanes("run", "-n", "50", "--source", "empty", "--module", "fault:at=5,action=throw",
                   "--output", "dummy", "--on-error", "skip")
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == 49
    assert result.report["events_skipped"] == 1


def test_fault_abort_kills_the_process(lanes):
    result = lanes("run", "-n", "50", "--source", "empty", "--module", "fault:at=3,action=abort")
    assert result.returncode < 0  # killed by SIGABRT, no report written
    assert result.report is None


def test_external_work_module(lanes):
    result = lanes("run", "-t", "2", "-l", "4", "-n", "40", "--source", "empty",
                   "--module", "offload:time=1e-4,produces.hits=100", "--output", "dummy")
    assert result.returncode == 0, result.stderr
    offload = next(m for m in result.report["modules"] if m["label"] == "offload")
    assert offload["calls"] >= 40


def test_repeat_and_per_product_waiters(lanes):
    result = lanes("run", "-n", "30", "--source", "synthetic:size.a=100,size.b=200,repeat=5",
                   "--waiter", "sleep:scale=1e-9,scale.b=2e-9", "--output", "dummy:ready=true")
    assert result.returncode == 0, result.stderr
    labels = sorted(m["label"] for m in result.report["modules"])
    assert labels == ["out", "sleep/a", "sleep/b"] or labels == ["dummy", "sleep/a", "sleep/b"]


def test_trace_is_a_chrome_trace(lanes, tmp_path):
    trace = tmp_path / "trace.json"
    result = lanes("run", "-n", "10", "--source", "synthetic:size.a=100", "--waiter", "busy",
                   "--output", "dummy", "--trace", trace)
    assert result.returncode == 0, result.stderr
    events = json.loads(trace.read_text())["traceEvents"]
    calls = [e for e in events if e["ph"] == "X"]
    assert {e["name"] for e in calls} >= {"busy/a", "source"}
    assert all("lane" in e["args"] and "event" in e["args"] for e in calls)


def test_example_menus_run(lanes):
    menus = sorted(MENUS.glob("*.toml"))
    assert len(menus) >= 3
    for menu in menus:
        result = lanes("run", "--menu", menu, "-n", "6", "-t", "2")
        assert result.returncode == 0, (menu, result.stderr)
        assert result.report["events"] == 6


def test_filters_gate_selected_outputs(lanes):
    result = lanes("run", "--menu", MENUS / "nanoaod-skim.toml", "-n", "200")
    assert result.returncode == 0, result.stderr
    calls = {m["label"]: m["calls"] for m in result.report["modules"]}
    assert calls["everything"] == 200
    assert 0 < calls["skim"] < 200  # only events the muon filter accepted


def test_plugins_lists_every_kind(lanes):
    result = lanes("plugins")
    assert result.returncode == 0
    for name in ("synthetic", "empty", "busy", "sleep", "event-time", "fault", "offload", "dummy", "producer"):
        assert name in result.stdout


@pytest.mark.parametrize("action, signal_number", [("interrupt", 2), ("terminate", 15)])
def test_signal_stops_gracefully_and_reports(lanes, action, signal_number):
    # The fault module signals its own process at event 50, as Ctrl-C or a batch
    # system would. The source is endless (-n 0), so only the stop ends the job.
    result = lanes("run", "-t", "2", "-l", "2", "-n", "0", "--endless", "--source", "empty",
                   "--module", f"fault:at=50,action={action}", "--output", "dummy")
    assert result.returncode == 128 + signal_number, result.stderr
    assert result.report["stop_requested"] is True
    assert result.report["failed"] is False
    # Some events were done before the stop: not necessarily 50, since each lane claims a range of
    # ordinals, and the lane that reached event 50 may be ahead of the other one.
    assert result.report["events"] >= 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "finishing the events in flight" in lines[0]
