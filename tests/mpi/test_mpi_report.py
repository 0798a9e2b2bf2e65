"""An MPI job's report (`mpirun -np 3`): rank 0 merges the ranks' figures under a single process's keys, as a
multi-process parent does (modules with their stalls, thread time, path report, event times, per-rank memory, the
monitor's cost), prints their analysis, and `lanes report` and `lanes compare` read those keys.

Skipped, with the reason, only when the build has no MPI (CTest passes LANES_MPI, from CMake's FindMPI).
"""

import json
import sys

import pytest

from conftest import REPO, run_lanes
from test_mpi import RANKS, mpi_lanes, pytestmark  # noqa: F401  (pytestmark: skipped without MPI)

sys.path.insert(0, str(REPO / "tests" / "tools"))
from browser import assert_not_blank, open_page  # noqa: E402

EVENTS = 120
# Four lanes a rank behind a `one` analyzer that costs 2 ms a call: three of them wait for its queue.
SERIAL = ["-t", 2, "-l", 4, "-n", EVENTS, "--source", "empty",
          "--module", "analyzer:time=2e-3,concurrency=one,label=serial", "--module", "analyzer:time=1e-4,label=free",
          "--output", "dummy"]


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    directory = tmp_path_factory.mktemp("mpi-report")
    result = mpi_lanes(directory, *SERIAL, "--html", directory / "page.html")
    assert result.returncode == 0, result.stderr
    return directory, result


def ranks_of(report):
    return [row["report"] for row in report["workers"]]


def test_modules_and_thread_time_are_the_sums_of_the_ranks(job):
    report = job[1].report
    ranks = ranks_of(report)
    assert len(ranks) == RANKS and report["events"] == EVENTS
    modules = {m["label"]: m for m in report["modules"]}
    for label, module in modules.items():
        for key in ("calls", "events", "total_s", "stall_s", "external_s"):
            assert module[key] == pytest.approx(sum(next(m[key] for m in r["modules"] if m["label"] == label)
                                                    for r in ranks)), (label, key)
    assert modules["serial"]["calls"] == modules["dummy"]["events"] == EVENTS
    assert modules["serial"]["stall_s"] > 0 and modules["free"]["stall_s"] == 0
    for key in ("total_s", "modules_s", "source_s", "outputs_s", "transitions_s", "overhead_s", "boundary_s", "idle_s"):
        assert report["thread_time"][key] == pytest.approx(sum(r["thread_time"][key] for r in ranks), abs=1e-9)
    assert report["stall_s"] == pytest.approx(sum(m["stall_s"] for m in report["modules"]))
    assert report["threads"] == 2 * RANKS
    assert len(report["lane_idle_s"]) == 4 * RANKS
    cpu = sum(r["cpu_user_s"] + r["cpu_sys_s"] for r in ranks)
    assert report["cpu_user_s"] + report["cpu_sys_s"] == pytest.approx(cpu)
    assert report["cpu_efficiency"] == pytest.approx(cpu / report["thread_time"]["total_s"])


def test_paths_and_event_times_count_every_event_once(job):
    report = job[1].report
    for path in report["path_report"]["paths"]:
        assert path["visited"] == path["accepted"] == EVENTS
    assert report["path_report"]["outputs"] == [{"label": "dummy", "events": EVENTS}]
    times = report["event_times"]
    assert times["events"] == EVENTS == sum(count for _, count in times["histogram"]["counts"])
    assert times["max_s"] == max(r["event_times"]["max_s"] for r in ranks_of(report))
    assert 0 < times["median_s"] <= times["p90_s"] <= times["p99_s"] <= times["max_s"]


def test_memory_is_sampled_per_rank_and_measured_at_the_end(job):
    report = job[1].report
    assert [m["part"] for m in report["memory"]["workers"]] == [row["part"] for row in report["workers"]]
    for entry, row in zip(report["memory"]["workers"], report["workers"]):
        assert len(entry["samples"]) == len(row["report"]["memory"]["samples"]) >= 2
        assert all(rss > 0 for _, rss in entry["samples"])
        assert row["memory"]["rss_bytes"] > 0  # the rank's memory at the end, beside its samples
    assert report["memory"]["total_rss_bytes"] == sum(row["memory"]["rss_bytes"] for row in report["workers"])


def test_the_monitors_cost_is_the_sum_of_the_ranks(job):
    report = job[1].report
    monitor, parts = report["monitor"], [r["monitor"] for r in ranks_of(report)]
    for key in ("timed_calls", "timed_waits", "timed_events"):
        assert monitor[key] == sum(p[key] for p in parts), key
    assert monitor["timed_calls"] > 0 and monitor["timed_events"] == EVENTS
    assert monitor["estimated_s"] == pytest.approx(sum(p["estimated_s"] for p in parts))
    assert monitor["thread_time_share"] == pytest.approx(monitor["estimated_s"] / report["thread_time"]["total_s"])


def test_rank_zero_prints_the_merged_analysis(job):
    out = job[1].stdout
    for words in ("  thread time ", "  monitor ~", "most in serial", "event time: median",
                  "RSS sampled in each worker", f"output dummy: {EVENTS} events written"):
        assert out.count(words) == 1, (words, out)


def test_the_html_page_shows_the_merged_figures_and_the_monitors_cost(job, tmp_path):
    directory, result = job
    report = result.report
    dom, console, pixels = open_page(directory / "page.html", tmp_path)
    assert console == []
    modules = dom.split('id="modules"')[1].split("</table>")[0]
    serial = next(m for m in report["modules"] if m["label"] == "serial")
    assert f'data-value="{serial["calls"]}"' in modules and f'data-value="{serial["stall_s"]}"' in modules
    assert f'id="monitor-estimated">{1e3 * report["monitor"]["estimated_s"]:,.2f} ms<' in dom
    assert f'id="stall-s">{report["stall_s"]:.3f} s' in dom and 'id="stalls-most">serial' in dom
    assert f"Merged from the job's {RANKS} ranks." in dom
    assert 'id="chart-time"' in dom
    assert_not_blank(pixels)


def test_the_report_keeps_rank_zeros_provenance_and_lists_the_ranks_hosts(job):
    report = job[1].report
    provenance = report["provenance"]
    assert provenance["command"][provenance["command"].index("run") - 1].endswith("lanes")
    assert provenance["host"] == report["workers"][0]["host"]
    assert provenance["hosts"] == list(dict.fromkeys(row["host"] for row in report["workers"]))
    for row in report["workers"]:
        assert row["report"]["provenance"]["host"] == row["host"]


def test_the_default_jobs_summary_fits_a_screen(tmp_path):
    result = mpi_lanes(tmp_path, "-n", 30)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) <= 60, result.stdout
    assert lines[-1] == "  (folded: --summary full prints every module and path; --report FILE.json keeps them all)"


def test_compare_reads_an_mpi_and_a_multi_process_report_alike(job, tmp_path):
    multiprocess = run_lanes("run", "--processes", RANKS, *SERIAL, "--report", "multi.json", cwd=tmp_path,
                             report=False)
    assert multiprocess.returncode == 0, multiprocess.stderr
    completed = run_lanes("compare", job[0] / "report.json", "multi.json", "--json", cwd=tmp_path, report=False)
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    figures = {f["name"]: f for f in result["figures"]}
    a, b = job[1].report, json.loads((tmp_path / "multi.json").read_text())
    assert (figures["events"]["a"], figures["events"]["b"]) == (EVENTS, EVENTS)
    assert (figures["threads"]["a"], figures["threads"]["b"]) == (2 * RANKS, 2 * RANKS)
    assert (figures["stall_s"]["a"], figures["stall_s"]["b"]) == (a["stall_s"], b["stall_s"])
    assert (figures["monitor_ms"]["a"], figures["monitor_ms"]["b"]) == (1e3 * a["monitor"]["estimated_s"],
                                                                        1e3 * b["monitor"]["estimated_s"])
    serial = next(m for m in result["modules"] if m["label"] == "serial")
    assert serial["a_s"] == next(m["total_s"] for m in a["modules"] if m["label"] == "serial")
    assert serial["b_s"] == next(m["total_s"] for m in b["modules"] if m["label"] == "serial")
