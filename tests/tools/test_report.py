"""`lanes report`, `lanes run --html` and `lanes scan --html`: the page is one self-contained file, and it renders
in headless Chromium with the key figures in its DOM, no console message and a screenshot that is not blank."""

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BINARY, REPO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import assert_not_blank, console_messages, chromium, open_page  # noqa: E402
from lanes.tools.lanes_report import page  # noqa: E402

SMALL_JOB = ["-t", "2", "-n", "200", "--source", "synthetic:size.a=100,size.b=1000", "--waiter", "busy:scale=1e-7",
             "--output", "dummy"]


def lanes(*args, cwd, timeout=240, env=None):
    return subprocess.run([str(BINARY), *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          stdin=subprocess.DEVNULL, env=env)


def assert_one_line_error(completed, *words, status=2):
    assert completed.returncode == status, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanes: error: "), completed.stderr
    for word in words:
        assert word in lines[0], lines[0]


def assert_self_contained(text):
    """Nothing is fetched: no external script, style sheet or image, only data: URIs (links may point out)."""
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=\"(?!data:)", text)
    assert "<link" not in text and "@import" not in text and "url(http" not in text


def shown(value, digits):
    return f"{value:,.{digits}f}"


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """A real single-process job with --report, --trace and --html."""
    directory = tmp_path_factory.mktemp("single")
    completed = lanes("run", *SMALL_JOB, "--report", "report.json", "--trace", "trace.json", "--html", "page.html",
                      cwd=directory)
    assert completed.returncode == 0, completed.stderr
    return directory


def test_run_html_renders_in_chromium_with_its_figures(single, tmp_path):
    report = json.loads((single / "report.json").read_text())
    text = (single / "page.html").read_text()
    assert_self_contained(text)
    dom, console, pixels = open_page(single / "page.html", tmp_path)
    assert console == []
    assert "<h1>lanes run: report.json</h1>" in dom
    assert f'id="events-per-s">{shown(report["events_per_s"], 1)}<' in dom
    assert f'id="events">{report["events"]:,}<' in dom
    assert f'id="cpu-efficiency">{100 * report["cpu_efficiency"]:.1f}%<' in dom
    for module in report["modules"]:
        assert f'data-value="{module["label"]}"' in dom
    provenance = report["provenance"]
    for said in (provenance["lanes_version"], provenance["compiler"], provenance["host"], provenance["kernel"]):
        assert said in dom
    assert 'id="open-perfetto"' in dom and "ui.perfetto.dev" in dom and "trace.json" in dom
    assert 'id="trace-file" href="trace.json"' in dom, "the trace beside the page, linked"
    assert "trace_processor --httpd" in dom, "how to open it offline"
    assert not list(single.glob("page.html.*")), "the report's copy and the page's temporary are gone"
    assert_not_blank(pixels)


def test_the_embedded_trace_is_the_trace(single):
    text = (single / "page.html").read_text()
    data = re.search(r'<script type="application/octet-stream" id="trace-data">([^<]*)</script>', text).group(1)
    assert base64.b64decode(data) == (single / "trace.json").read_bytes()


def test_the_module_table_sorts_by_total_time_and_has_stall_time_when_the_report_does(tmp_path):
    report = {"threads": 1, "lanes": 1, "events": 10, "wall_s": 1.0, "events_per_s": 10.0, "cpu_user_s": 0.5,
              "cpu_sys_s": 0.0, "cpu_efficiency": 0.5, "peak_rss_bytes": 1 << 20, "source_s": 0.2, "failed": True,
              "error": "module 'slow' failed at event 1:1:7",
              "modules": [{"label": "fast", "plugin": "busy", "kind": "analyzer", "concurrency": "global",
                           "calls": 10, "total_s": 0.1, "stall_s": 0.0},
                          {"label": "slow", "plugin": "busy", "kind": "analyzer", "concurrency": "one",
                           "calls": 10, "total_s": 0.6, "stall_s": 0.25}],
              "thread_time": {"total_s": 1.0, "modules_s": 0.7, "source_s": 0.2, "outputs_s": 0.0, "overhead_s": 0.0,
                              "idle_s": 0.1}}
    (tmp_path / "r.json").write_text(json.dumps(report))
    completed = lanes("report", "r.json", "-o", "r.html", "--title", "slow <b>job</b>", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    dom, console, pixels = open_page(tmp_path / "r.html", tmp_path)
    assert console == []
    rows = re.findall(r'<tr><td class="" data-value="([^"]+)"', dom.split('id="modules"')[1])
    assert rows == ["slow", "(source)", "fast"]
    assert "<h1>slow &lt;b&gt;job&lt;/b&gt;</h1>" in dom
    assert "stall s" in dom and 'data-value="0.25"' in dom
    assert 'id="chart-time"' in dom and 'data-label="idle" data-total="0.1"' in dom
    assert 'id="failure"' in dom and "1:1:7" in dom
    assert 'id="open-perfetto"' not in dom  # no trace given
    assert_not_blank(pixels)


def test_a_console_error_is_caught(tmp_path):
    """The check itself: a page whose script fails shows up in the console messages."""
    broken = tmp_path / "broken.html"
    broken.write_text("<html><body><p>x</p><script>undefinedFunction();</script></body></html>")
    completed = chromium(broken, tmp_path / "profile", "--dump-dom")
    assert any("undefinedFunction" in line for line in console_messages(completed.stderr))


def test_the_stall_graph_of_the_trace_is_in_the_page(single, tmp_path):
    completed = lanes("report", single / "report.json", "--trace", single / "trace.json", "-o", tmp_path / "s.html",
                      cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert "warning" not in completed.stderr
    assert re.search(r'<div id="stall-graph"><img alt="stall_graph" src="data:image/png;base64,',
                     (tmp_path / "s.html").read_text())
    plain = lanes("report", single / "report.json", "-o", tmp_path / "p.html", cwd=tmp_path)
    assert plain.returncode == 0 and "stall-graph" not in (tmp_path / "p.html").read_text()


def test_multi_process_html_shows_the_parents_merged_figures_and_a_row_per_worker(tmp_path):
    completed = lanes("run", "-p", "2", *SMALL_JOB, "--report", "report.json", "--html", "page.html", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    text = (tmp_path / "page.html").read_text()
    assert_self_contained(text)
    dom, console, pixels = open_page(tmp_path / "page.html", tmp_path)
    assert console == []
    workers = dom.split('id="workers"')[1].split("</table>")[0]
    for worker in report["workers"]:
        assert f'data-value="{worker["pid"]}"' in workers
    assert 'id="processes">2<' in dom and f'id="threads">{report["threads"]}<' in dom
    assert f'id="cpu-efficiency">{100 * report["cpu_efficiency"]:.1f}%<' in dom
    modules = dom.split('id="modules"')[1].split("</table>")[0]
    for module in report["modules"]:  # the parent's merged rows
        assert f'data-value="{module["label"]}"' in modules and f'data-value="{module["calls"]}"' in modules
    assert next(m for m in report["modules"] if m["label"] == "dummy")["calls"] == report["events"]
    assert f'id="monitor-estimated">{1e3 * report["monitor"]["estimated_s"]:,.2f} ms<' in dom
    assert f'id="monitor-share">{100 * report["monitor"]["thread_time_share"]:.2f}%<' in dom
    assert f'id="stall-s">{report["stall_s"]:.3f} s' in dom and 'id="event-times">median ' in dom
    merged_from = "3 parts (its workers, and the events before the fork)" if report["prefork"] else "2 workers"
    assert f"Merged from the job's {merged_from}." in dom
    assert_not_blank(pixels)


def test_a_single_process_page_shows_the_monitors_cost_without_saying_merged(single):
    report = json.loads((single / "report.json").read_text())
    text = (single / "page.html").read_text()
    assert f'id="monitor-calls">{report["monitor"]["timed_calls"]:,} x ' in text
    assert 'id="stall-s">' in text and "Merged from" not in text
    assert 'id="monitor-sample">every call timed<' in text


def test_a_page_says_when_the_timing_was_sampled(tmp_path):
    completed = lanes("run", *SMALL_JOB, "--monitor-sample", 4, "--html", "page.html", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    text = (tmp_path / "page.html").read_text()
    assert 'id="monitor-sample">one event in 4 per lane timed: call counts exact, times estimated<' in text


def test_compare_reads_a_multi_process_report_as_a_single_process_one(single, tmp_path):
    completed = lanes("run", "-p", "2", *SMALL_JOB, "--report", "multi.json", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    compared = lanes("compare", single / "report.json", "multi.json", "--json", cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    result = json.loads(compared.stdout)
    multi = json.loads((tmp_path / "multi.json").read_text())
    figures = {f["name"]: f for f in result["figures"]}
    assert figures["threads"]["b"] == multi["threads"] == 4
    assert figures["cpu_s"]["b"] == pytest.approx(multi["cpu_user_s"] + multi["cpu_sys_s"])
    assert figures["monitor_ms"]["b"] == 1e3 * multi["monitor"]["estimated_s"]
    rows = {m["label"]: m for m in result["modules"]}
    for module in multi["modules"]:
        assert rows[module["label"]]["b_s"] == module["total_s"]
    assert rows["(source)"]["b_s"] == multi["source_s"]


@pytest.mark.parametrize("command", [["report", "old.json", "-o", "x.html"], ["compare", "old.json", "old.json"]])
def test_a_multi_process_report_without_merged_figures_is_refused_in_one_line(tmp_path, command):
    old = {"mode": "fork", "events": 10, "wall_s": 1.0, "events_per_s": 10.0,
           "workers": [{"part": "worker-0", "report": {"modules": [], "threads": 1}}]}
    (tmp_path / "old.json").write_text(json.dumps(old))
    completed = lanes(*command, cwd=tmp_path)
    assert_one_line_error(completed, "old.json", "older lanes", "run the job again")
    assert not (tmp_path / "x.html").exists()


def test_scan_html_has_its_points_and_charts(tmp_path):
    scan = tmp_path / "scan"
    completed = lanes("scan", "-o", scan, "--html", tmp_path / "scan.html", "--vary", "threads=1,2", "--events",
                      "200", "--", "--source", "empty", "--output", "dummy", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    text = (tmp_path / "scan.html").read_text()
    assert_self_contained(text)
    summary = json.loads((scan / "summary.json").read_text())["points"]
    dom, console, pixels = open_page(tmp_path / "scan.html", tmp_path)
    assert console == []
    points = dom.split('id="points"')[1].split("</table>")[0]
    assert points.count("<tr>") == 1 + len(summary)
    for point in summary:
        assert shown(point["events_per_s"]["median"], 1) in points
    for chart in ("rate", "speedup", "efficiency"):
        assert f'id="chart-scan-{chart}"' in dom
    assert 'id="point-count">2<' in dom
    assert_not_blank(pixels)
    again = lanes("report", scan, "-o", tmp_path / "again.html", cwd=tmp_path)
    assert again.returncode == 0 and (tmp_path / "again.html").read_text() == text


@pytest.mark.parametrize("make, args, words", [
    (None, ["missing.json", "-o", "x.html"], ["missing.json does not exist"]),
    ("not json", ["bad.json", "-o", "x.html"], ["is not JSON"]),
    ('{"a": 1}', ["bad.json", "-o", "x.html"], ["not a lanes run report"]),
    ("dir", ["d", "-o", "x.html"], ["not a scan directory"]),
    ('{"events_per_s": 1, "wall_s": 1}', ["bad.json", "-o", "nowhere/x.html"], ["directory nowhere does not exist"]),
    ('{"events_per_s": 1, "wall_s": 1}', ["bad.json", "-o", "x.html", "--trace", "t.json"], ["t.json does not exist"]),
    ('{"events_per_s": 1, "wall_s": 1}', ["bad.json"], ["-o"]),
    ('{"events_per_s": 1, "wall_s": 1}', ["bad.json", "-o", "bad.json"], ["overwrite its input"]),
])
def test_bad_input_is_one_line(tmp_path, make, args, words):
    if make == "dir":
        (tmp_path / "d").mkdir()
    elif make is not None:
        (tmp_path / "bad.json").write_text(make)
    completed = lanes("report", *args, cwd=tmp_path)
    assert_one_line_error(completed, *words)
    assert not (tmp_path / "x.html").exists()


def test_run_html_in_a_missing_directory_is_refused_before_the_job(tmp_path):
    completed = lanes("run", *SMALL_JOB, "--html", "nowhere/page.html", cwd=tmp_path)
    assert_one_line_error(completed, "HTML report", "nowhere")


def test_page_renders_without_a_browser_for_every_report_field():
    """render() copes with a report that has only the figures every report has."""
    text = page.render({"kind": "run", "path": Path("r.json"), "report": {"events_per_s": 1.0, "wall_s": 2.0}})
    assert 'id="events-per-s">1.0<' in text


def test_scan_html_in_a_missing_directory_is_refused_before_the_scan(tmp_path):
    completed = lanes("scan", "-o", tmp_path / "scan", "--html", tmp_path / "nowhere" / "scan.html", "--vary",
                      "threads=1,2", "--", "--source", "empty", "--output", "dummy", cwd=tmp_path)
    assert_one_line_error(completed, "HTML report", "nowhere")
    assert not (tmp_path / "scan").exists()


def test_the_configuration_and_the_provenance_are_legible():
    """Units and rounding, nothing raw, nothing empty (no empty error, no `false`)."""
    report = {"events_per_s": 1.0, "wall_s": 2.0, "lanes": 4, "cpu_user_s": 1.23456789, "error": "", "failed": False,
              "stop_requested": False, "pinning": {"strategy": "numa-compact", "threads_pinned": 2},
              "merge_s": 0.0123456, "memory": {"total_rss_bytes": 3 << 20},
              "provenance": {"command": ["lanes", "run", "--menu", "my menu.toml"],
                             "menu": {"path": "/work/my menu.toml", "sha256": "ab" * 32}, "host": "node7",
                             "cpu_model": "AMD EPYC 7763", "cpu_id": "family 25 model 1 stepping 1",
                             "cores": {"logical": 128, "physical": 64},
                             "numa_nodes": 8, "kernel": "Linux 6.1.0 x86_64", "lanes_version": "0.1.0",
                             "git_commit": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": True},
                             "root_version": "6.40/00", "tbb_version": "2021.9.0", "compiler": "gcc 12.2.0",
                             "started": "2025-01-31T12:34:56Z"}}
    text = page.render({"kind": "run", "path": Path("r.json"), "report": report})
    configuration = text.split('id="configuration"')[1].split("</table>")[0]
    assert "<th>cpu user</th><td>1.235 s</td>" in configuration
    assert "<th>merge</th><td>0.012 s</td>" in configuration
    assert "<th>pinning</th><td>strategy numa-compact, threads pinned 2</td>" in configuration
    assert "error" not in configuration and "stop requested" not in configuration and "failed" not in configuration
    assert "1.23456789" not in text and "0.0123456" not in text
    provenance = text.split('id="provenance"')[1].split("</table>")[0]
    for shown in ("lanes run --menu &#x27;my menu.toml&#x27;", "2025-01-31 12:34:56 UTC", "128 logical, 64 physical",
                  "0.1.0, commit 0123456789ab (with local changes)", "AMD EPYC 7763 (family 25 model 1 stepping 1)",
                  "6.40/00", "node7",
                  "/work/my menu.toml (SHA-256 abababababababab…)"):
        assert shown in provenance, shown


def test_a_report_without_provenance_says_so():
    text = page.render({"kind": "run", "path": Path("r.json"), "report": {"events_per_s": 1.0, "wall_s": 2.0}})
    assert "Not recorded: the report was written by an older lanes." in text
