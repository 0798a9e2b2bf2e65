"""Stall analysis end to end: the report's thread-time breakdown, per-module stall, path report, event times and
memory over time, asserted on the JSON (and on the text summary where it must name something)."""

import pytest

from conftest import REPO

RECONSTRUCTION = REPO / "examples" / "reconstruction.toml"
# Four lanes behind a `one` analyzer that costs 2 ms a call: three of them wait for its queue most of the time.
SERIAL = ["--source", "empty", "--module", "analyzer:time=2e-3,concurrency=one,label=serial",
          "--module", "analyzer:time=1e-4,label=free", "--output", "dummy"]


@pytest.fixture(scope="module")
def reconstruction(tmp_path_factory):
    from conftest import run_lanes
    return run_lanes("run", "--menu", RECONSTRUCTION, "-t", "2", "-l", "4", "-n", "40",
                     cwd=tmp_path_factory.mktemp("reconstruction"))


def test_every_module_has_its_stall_next_to_its_total(reconstruction):
    assert reconstruction.returncode == 0, reconstruction.stderr
    modules = {m["label"]: m for m in reconstruction.report["modules"]}
    for module in modules.values():
        assert module["stall_s"] >= 0 and module["external_s"] >= 0 and module["total_s"] >= 0
        if module["concurrency"] in ("global", "stream"):
            assert module["stall_s"] == 0, module  # nothing serialises them
    assert modules["dqm"]["concurrency"] == "one"
    assert reconstruction.report["stall_s"] == pytest.approx(sum(m["stall_s"] for m in modules.values()))


def test_thread_time_breakdown_adds_up(reconstruction):
    report = reconstruction.report
    time = report["thread_time"]
    assert time["total_s"] == pytest.approx(report["threads"] * report["wall_s"])
    parts = [time[key] for key in ("modules_s", "source_s", "outputs_s", "transitions_s", "overhead_s", "boundary_s",
                                   "idle_s")]
    assert all(part >= 0 for part in parts)
    assert sum(parts) == pytest.approx(time["total_s"], rel=1e-9)
    assert time["outputs_s"] == pytest.approx(report["outputs_s"])
    assert len(report["lane_idle_s"]) == report["lanes"] == 4
    assert all(idle >= 0 for idle in report["lane_idle_s"])
    assert "thread time" in reconstruction.stdout


def test_path_report_counts_like_a_trigger_report(reconstruction):
    report = reconstruction.report
    paths = {p["name"]: p for p in report["path_report"]["paths"]}
    assert {"HLT_SingleMuon", "HLT_DiJet_BTag", "HLT_Electron", "DQM"} <= set(paths)
    for path in paths.values():
        assert path["visited"] == report["events"]
        assert path["visited"] == path["accepted"] + path["rejected"] + path["failed"]
        visited = path["visited"]
        for module in path["modules"]:
            assert module["visited"] == visited  # a module sees what the one before it accepted
            assert module["visited"] == module["accepted"] + module["rejected"] + module["failed"]
            visited = module["accepted"]
        assert visited == path["accepted"]
    assert paths["DQM"]["accepted"] == report["events"]  # an analyzer accepts everything
    outputs = {o["label"]: o["events"] for o in report["path_report"]["outputs"]}
    triggers = [paths[name]["accepted"] for name in ("HLT_SingleMuon", "HLT_DiJet_BTag", "HLT_Electron")]
    assert max(triggers) <= outputs["aod"] <= min(sum(triggers), report["events"])  # the OR of the three
    assert "HLT_DiJet_BTag" in reconstruction.stdout
    assert f"output aod: {outputs['aod']} events written" in reconstruction.stdout


def test_event_times_and_memory_over_time(reconstruction):
    report = reconstruction.report
    times = report["event_times"]
    assert times["events"] == report["events"] == 40
    assert 0 < times["median_s"] <= times["p90_s"] <= times["p99_s"] <= times["max_s"]
    assert times["max_s"] <= report["wall_s"]
    assert len(times["slowest"]) == 5
    assert times["slowest"][0]["s"] == pytest.approx(times["max_s"])
    assert len({e["event"] for e in times["slowest"]}) == 5
    samples = report["memory"]["samples"]
    assert len(samples) >= 2  # at least at the start and at the end
    assert all(a[0] <= b[0] for a, b in zip(samples, samples[1:]))
    assert all(rss > 0 for _, rss in samples)
    assert "event time: median" in reconstruction.stdout and "RSS" in reconstruction.stdout


def test_the_summary_names_the_module_that_stalls_most(lanes):
    result = lanes("run", "-t", "4", "-l", "4", "-n", "200", *SERIAL)
    assert result.returncode == 0, result.stderr
    modules = {m["label"]: m for m in result.report["modules"]}
    assert modules["serial"]["stall_s"] > 0
    assert modules["free"]["stall_s"] == 0
    assert "most in serial" in result.stdout, result.stdout


def test_external_work_waits_are_reported(lanes):
    result = lanes("run", "-t", "2", "-l", "4", "-n", "40", "--source", "empty",
                   "--module", "offload:time=1e-3,produces.x=10,label=gpu", "--output", "dummy")
    assert result.returncode == 0, result.stderr
    gpu = next(m for m in result.report["modules"] if m["label"] == "gpu")
    assert gpu["external_s"] > 0  # each call sleeps 1 ms on the pool
    assert gpu["stall_s"] == 0


def test_a_serialising_output_accounts_for_its_per_product_work(lanes):
    # issue 15: productReady calls are part of the output's own row, as they are of the outputs' time
    result = lanes("run", "-t", "2", "-n", "20", "--source", "synthetic:size.a=1000,size.b=2000",
                   "--output", "dummy:ready=true")
    assert result.returncode == 0, result.stderr
    report = result.report
    outputs = [m for m in report["modules"] if m["kind"] == "output"]
    assert sum(m["total_s"] for m in outputs) == pytest.approx(report["outputs_s"])


# ---- a multi-process job: the parent merges its parts' figures (the workers', and the events before the fork)

@pytest.fixture(scope="module", params=["fork", "no-fork"])
def multiprocess(request, tmp_path_factory):
    from conftest import run_lanes
    extra = ["--events-before-fork", "4"] if request.param == "fork" else ["--no-fork"]
    return run_lanes("run", "--processes", "2", "-t", "2", "-l", "4", "-n", "200", *extra, *SERIAL,
                     cwd=tmp_path_factory.mktemp("multiprocess"))


def parts_of(report):
    parts = [w["report"] for w in report["workers"] if "report" in w]
    return parts + ([report["prefork"]] if report["prefork"] else [])


def test_multi_process_thread_time_and_modules_are_the_sums_of_the_parts(multiprocess):
    assert multiprocess.returncode == 0, multiprocess.stderr
    report, parts = multiprocess.report, parts_of(multiprocess.report)
    assert len(parts) == (3 if report["mode"] == "fork" else 2)
    for key in ("total_s", "modules_s", "source_s", "outputs_s", "transitions_s", "overhead_s", "boundary_s", "idle_s"):
        assert report["thread_time"][key] == pytest.approx(sum(p["thread_time"][key] for p in parts), abs=1e-9)
    assert report["stall_s"] == pytest.approx(sum(p["stall_s"] for p in parts))
    assert report["stall_s"] == pytest.approx(sum(m["stall_s"] for m in report["modules"]))
    modules = {m["label"]: m for m in report["modules"]}
    for label, module in modules.items():
        for key in ("calls", "events", "total_s", "stall_s", "external_s"):
            assert module[key] == pytest.approx(sum(next(m[key] for m in p["modules"] if m["label"] == label)
                                                    for p in parts)), (label, key)
    assert modules["serial"]["stall_s"] > 0 and modules["free"]["stall_s"] == 0
    assert modules["serial"]["events"] == report["events"] == 200
    assert len(report["lane_idle_s"]) == sum(len(p["lane_idle_s"]) for p in parts)


def test_multi_process_path_counts_sum_to_the_jobs_events(multiprocess):
    report = multiprocess.report
    paths = report["path_report"]["paths"]
    assert paths, "no path report"
    for path in paths:
        assert path["visited"] == report["events"] == 200
        assert path["visited"] == path["accepted"] + path["rejected"] + path["failed"]
        for module in path["modules"]:
            assert module["visited"] == module["accepted"] + module["rejected"] + module["failed"]
    assert report["path_report"]["outputs"] == [{"label": "dummy", "events": 200}]


def test_multi_process_event_times_merge_the_workers_distributions(multiprocess):
    report, parts = multiprocess.report, parts_of(multiprocess.report)
    times = report["event_times"]
    assert times["events"] == report["events"] == sum(p["event_times"]["events"] for p in parts)
    assert times["max_s"] == max(p["event_times"]["max_s"] for p in parts)
    assert 0 < times["median_s"] <= times["p90_s"] <= times["p99_s"] <= times["max_s"]
    medians = [p["event_times"]["median_s"] for p in parts if p["event_times"]["events"]]
    assert min(medians) * 0.99 <= times["median_s"] <= max(medians) * 1.01  # give or take half a bucket
    assert times["slowest"][0]["s"] == times["max_s"]
    assert sum(count for _, count in times["histogram"]["counts"]) == 200


def test_multi_process_memory_is_sampled_per_worker_on_the_jobs_clock(multiprocess):
    report = multiprocess.report
    memory = report["memory"]["workers"]
    assert [m["part"] for m in memory] == [w["part"] for w in report["workers"]]
    for entry, worker in zip(memory, report["workers"]):
        samples = entry["samples"]
        assert len(samples) == len(worker["report"]["memory"]["samples"]) >= 2
        assert worker["started_s"] <= samples[0][0] and samples[-1][0] <= report["wall_s"]
        assert all(rss > 0 for _, rss in samples)


def test_multi_process_monitor_cost_and_cpu_are_the_sums_of_the_parts(multiprocess):
    report, parts = multiprocess.report, parts_of(multiprocess.report)
    monitor = report["monitor"]
    for key in ("timed_calls", "timed_waits", "timed_events"):
        assert monitor[key] == sum(p["monitor"][key] for p in parts), key
    assert monitor["timed_calls"] > 0 and monitor["timed_events"] == report["events"] == 200
    assert monitor["estimated_s"] == pytest.approx(sum(p["monitor"]["estimated_s"] for p in parts))
    records = monitor["timed_calls"] * monitor["ns_per_call"] + \
        (monitor["timed_waits"] + monitor["timed_events"]) * monitor["ns_per_wait"]
    assert 1e-9 * records == pytest.approx(monitor["estimated_s"])
    assert monitor["thread_time_share"] == pytest.approx(monitor["estimated_s"] / report["thread_time"]["total_s"])
    cpu = sum(p["cpu_user_s"] + p["cpu_sys_s"] for p in parts)
    assert report["cpu_user_s"] + report["cpu_sys_s"] == pytest.approx(cpu)
    assert report["cpu_efficiency"] == pytest.approx(cpu / report["thread_time"]["total_s"])
    assert report["threads"] == 4  # the workers', not the events' before the fork


def test_multi_process_summary_prints_the_merged_analysis(multiprocess):
    out = multiprocess.stdout
    for words in ("thread time", "monitor ~", "most in serial", "event time: median", "RSS sampled in each worker",
                  "path/module", "output dummy: 200 events written"):
        assert words in out, out


def test_a_multi_process_job_prints_an_analysis_only_of_parts_that_finished(lanes):
    result = lanes("run", "--processes", "2", "-t", "1", "-n", "100", "--source", "empty",
                   "--module", "fault:at=30,action=abort", "--output", "dummy")
    assert result.returncode == 1, result.stderr
    report = result.report
    finished = [w for w in report["workers"] if "report" in w]
    assert ("thread time" in result.stdout) == bool(finished), result.stdout
    assert report["event_times"]["events"] == sum(w["report"]["event_times"]["events"] for w in finished)
    assert [m["part"] for m in report["memory"]["workers"]] == [w["part"] for w in finished]
