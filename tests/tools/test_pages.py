"""Every kind of HTML page (a single process's run, a multi-process run, an MPI run, a scan, a comparison), made by
real jobs as lanes.tools.report_screenshots makes the guide's pictures, opened in headless Chromium: no console
message, no network request, every chart in the DOM with data points equal to the report's figures, and every
chart's area drawn in a screenshot of the whole page."""

import json
import os
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import BINARY, REPO

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import chart_pixels, chromium, drawn_share, inspect_page, page_requests, read_net_log  # noqa: E402
from lanes.tools.lanes_report import drawings  # noqa: E402
from lanes.tools.report_screenshots import KINDS, make_pages  # noqa: E402

MIB = 2**20
MPI = os.environ.get("LANES_MPI") == "1" and shutil.which("mpirun") is not None
EVENTS = 40  # of examples/reconstruction.toml: about 1 s of CPU a job


class Marks(HTMLParser):
    """The charts of a page: {figure id: [(tag, attributes)]} of every element in each <figure class="chart">."""

    def __init__(self, text):
        super().__init__()
        self.charts, self.current, self.depth = {}, None, 0
        self.feed(text)

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "figure" and "chart" in attributes.get("class", ""):
            self.current, self.depth = attributes["id"], 0
            self.charts[self.current] = []
        elif self.current is not None:
            self.charts[self.current].append((tag, attributes))
        if tag == "figure":
            self.depth += 1

    def handle_endtag(self, tag):
        if tag == "figure" and self.current is not None:
            self.depth -= 1
            if self.depth == 0:
                self.current = None

    def marks(self, chart, css_class):
        return [a for _, a in self.charts[chart] if css_class in a.get("class", "").split()]

    def series(self, chart):
        """{name: [[x, y], ...]} of a line chart."""
        return {a["data-name"]: json.loads(a["data-values"]) for a in self.marks(chart, "series")}


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    directory = tmp_path_factory.mktemp("pages")
    kinds = KINDS if MPI else tuple(k for k in KINDS if k != "mpi")
    return make_pages(BINARY, directory, EVENTS, kinds)


@pytest.fixture(scope="module")
def seen(pages, tmp_path_factory):
    """Each page as Chromium shows it (browser.inspect_page), and its charts' marks."""
    result = {}
    for kind, made in pages.items():
        view = inspect_page(made["page"], tmp_path_factory.mktemp(f"chromium-{kind}"))
        view["marks"] = Marks(view["dom"])
        result[kind] = view
    return result


def kind_or_skip(kind, seen):
    if kind not in seen:
        pytest.skip("this build has no MPI (CMake found none), or mpirun is missing")
    return seen[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_the_page_renders_offline_without_a_console_message(kind, seen, pages):
    view = kind_or_skip(kind, seen)
    assert view["console"] == []
    assert view["requests"] == [], "the page fetched from the network"
    text = pages[kind]["page"].read_text()
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=\"(?!data:)", text)
    assert "<link" not in text and "@import" not in text and "url(http" not in text


@pytest.mark.parametrize("kind", KINDS)
def test_every_chart_is_drawn_in_the_screenshot(kind, seen):
    view = kind_or_skip(kind, seen)
    charts = view["layout"]["charts"]
    assert set(charts) == set(view["marks"].charts) and charts, "every chart in the DOM is laid out"
    assert view["pixels"].shape[0] >= view["layout"]["height"] - 1, "the screenshot holds the whole page"
    for chart, box in charts.items():
        assert box[2] > 300 and box[3] > 100, (chart, box)
        share = drawn_share(chart_pixels(view["pixels"], box))
        assert share > 0.02, f"{chart}: only {share:.2%} of its area drawn"


def check_time_chart(marks, report):
    """The time chart's bars are the modules' total and stall times, then source, outputs, overhead and idle."""
    bars = {a["data-label"]: a for a in marks.marks("chart-time", "bar")}
    parts = [a for a in marks.marks("chart-time", "part")]
    modules = sorted((m for m in report["modules"] if m["kind"] != "output"), key=lambda m: -m["total_s"])
    for module in modules[:drawings.TOP_MODULES]:
        assert json.loads(bars[module["label"]]["data-total"]) == pytest.approx(module["total_s"] + module["stall_s"])
    own = [json.loads(p["data-value"]) for p in parts if p["data-part"] == "own"]
    assert own[:len(modules[:drawings.TOP_MODULES])] == [m["total_s"] for m in modules[:drawings.TOP_MODULES]]
    breakdown = report["thread_time"]
    for name in ("source", "overhead", "idle"):
        assert json.loads(bars[name]["data-total"]) == breakdown[f"{name}_s"], name
    stalls = [json.loads(p["data-value"]) for p in parts if p["data-part"] == "stall"]
    assert sum(stalls) == pytest.approx(report["stall_s"])


def check_event_times(marks, report):
    times = report["event_times"]
    counts = [json.loads(a["data-count"]) for a in marks.marks("chart-event-times", "bin")]
    assert sum(counts) == times["events"] > 0
    markers = {a["data-name"]: json.loads(a["data-value"]) for a in marks.marks("chart-event-times", "marker")}
    assert markers == {"median": times["median_s"], "90%": times["p90_s"], "99%": times["p99_s"],
                       "max": times["max_s"]}


def test_a_single_process_page_draws_the_reports_figures(seen, pages):
    marks = seen["run"]["marks"]
    report = json.loads(pages["run"]["input"].read_text())
    check_time_chart(marks, report)
    check_event_times(marks, report)
    assert marks.series("chart-memory") == {"RSS": [[t, rss / MIB] for t, rss in report["memory"]["samples"]]}
    activity = report["activity"]["samples"]
    assert len(activity) == len(report["memory"]["samples"]) - 1 > 0
    assert marks.series("chart-activity") == {"busy threads": [[t, busy] for t, busy, _ in activity],
                                              "events in flight": [[t, events] for t, _, events in activity]}
    assert max(events for _, _, events in activity) <= report["lanes"] == 3
    references = {a["data-name"]: json.loads(a["data-value"]) for a in marks.marks("chart-activity", "reference")}
    assert references == {"2 threads": 2, "3 lanes": 3}


@pytest.mark.parametrize("kind", ["multi-process", "mpi"])
def test_a_merged_page_draws_each_parts_series(kind, seen, pages):
    view = kind_or_skip(kind, seen)
    marks = view["marks"]
    report = json.loads(pages[kind]["input"].read_text())
    check_time_chart(marks, report)
    check_event_times(marks, report)
    assert marks.series("chart-memory") == {w["part"]: [[t, rss / MIB] for t, rss in w["samples"]]
                                            for w in report["memory"]["workers"]}
    series = marks.series("chart-activity")
    for worker in report["activity"]["workers"]:
        assert series[f"{worker['part']}: busy threads"] == [[t, busy] for t, busy, _ in worker["samples"]]
        assert series[f"{worker['part']}: events in flight"] == [[t, n] for t, _, n in worker["samples"]]
    assert len(report["activity"]["workers"]) == report["processes"]
    assert report["provenance"]["hosts"] and report["provenance"]["host"] in view["dom"]


def test_a_scan_page_draws_each_points_rate_speedup_and_efficiency(seen, pages):
    marks = seen["scan"]["marks"]
    summary = json.loads((pages["scan"]["input"] / "summary.json").read_text())["points"]
    rate = {json.loads(a["data-x"]): a for a in marks.marks("chart-scan-rate", "point")}
    efficiency = {json.loads(a["data-x"]): a for a in marks.marks("chart-scan-efficiency", "point")}
    speedup = {json.loads(a["data-x"]): a for a in marks.marks("chart-scan-speedup", "point")}
    assert sorted(rate) == [1, 2] and sorted(efficiency) == [1, 2] and sorted(speedup) == [1, 2]
    one = next(p for p in summary if p["axes"]["threads"] == 1)["events_per_s"]["median"]
    for point in summary:
        threads, figures = point["axes"]["threads"], point["events_per_s"]
        assert [json.loads(rate[threads][k]) for k in ("data-median", "data-min", "data-max")] == \
            [figures["median"], figures["min"], figures["max"]]
        assert json.loads(efficiency[threads]["data-median"]) == 100 * point["cpu_efficiency"]["median"]
        assert json.loads(speedup[threads]["data-median"]) == pytest.approx(figures["median"] / one)
    manifest = json.loads((pages["scan"]["input"] / "manifest.json").read_text())
    assert manifest["provenance"]["command"][:2] == ["lanes", "scan"]
    assert manifest["provenance"]["host"] in seen["scan"]["dom"]


def test_a_comparison_page_draws_both_runs_modules(seen, pages):
    marks = seen["compare"]["marks"]
    a, b = (json.loads(path.read_text()) for path in pages["compare"]["input"])
    bars = {x["data-label"]: json.loads(x["data-total"]) for x in marks.marks("chart-compare-modules", "bar")}
    assert len(bars) == 2 * min(drawings.TOP_MODULES, len(a["modules"]) + 1)
    for side, report in (("A", a), ("B", b)):
        totals = {m["label"]: m["total_s"] + m["stall_s"] for m in report["modules"]} | {"(source)": report["source_s"]}
        for label, total in bars.items():
            if label.endswith(f" ({side})"):
                assert total == pytest.approx(totals[label.removesuffix(f" ({side})")]), label
    assert 'id="provenance-warning"' not in seen["compare"]["dom"], "the same machine and build"


def test_a_network_request_is_caught(tmp_path):
    """The check itself: a page that fetches shows up in the requests, Chromium's own do not."""
    fetching = tmp_path / "fetching.html"
    fetching.write_text('<html><body><img src="http://example.invalid/x.png"></body></html>')
    completed = chromium(fetching, tmp_path / "profile", "--dump-dom", f"--log-net-log={tmp_path / 'log.json'}")
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert page_requests(read_net_log(tmp_path / "log.json")) == ["http://example.invalid/x.png"]
