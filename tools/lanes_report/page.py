"""The HTML report: one self-contained file (inline CSS and JS, images as data URIs) that opens offline."""

import base64
import html
import json
import sys
import tempfile
from pathlib import Path

from lanes_plots.stall_graph import stall_graph

from . import inputs

TRACE_EMBED_LIMIT = 16 * 1024 * 1024  # larger traces are named, not embedded: the page must stay openable

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}
h1{font-size:22px} h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid #ccd;border-radius:6px;padding:8px 14px;min-width:120px;background:#f7f8fc}
.card .v{font-size:20px;font-weight:600} .card .k{color:#666;font-size:12px}
.failed{background:#fde8e8;border:1px solid #e99;padding:8px;border-radius:6px}
table{border-collapse:collapse;margin:6px 0} td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums} th.sortable{cursor:pointer;user-select:none}
th.sortable:after{content:" \\2195";color:#aaa}
.bar{display:flex;height:22px;border-radius:4px;overflow:hidden;margin:6px 0;max-width:800px}
.bar div{height:100%} img{max-width:100%;border:1px solid #eee;margin:6px 0}
code{background:#f3f3f3;padding:1px 4px}
"""

SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.classList.add("sortable");
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var down = th.dataset.order !== "desc";
      th.dataset.order = down ? "desc" : "asc";
      rows.sort(function (a, b) {
        var x = a.cells[column].dataset.value, y = b.cells[column].dataset.value;
        var nx = parseFloat(x), ny = parseFloat(y), order;
        if (!isNaN(nx) && !isNaN(ny)) order = nx - ny; else order = String(x).localeCompare(String(y));
        return down ? -order : order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""

# Opens ui.perfetto.dev and hands it the embedded trace (Perfetto's postMessage protocol: PING until PONG).
PERFETTO_SCRIPT = """
var perfettoButton = document.getElementById("open-perfetto");
if (perfettoButton) perfettoButton.addEventListener("click", function () {
  var text = atob(document.getElementById("trace-data").textContent.trim());
  var bytes = new Uint8Array(text.length);
  for (var i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
  var ui = window.open("https://ui.perfetto.dev/#!/");
  var timer = setInterval(function () { ui.postMessage("PING", "https://ui.perfetto.dev"); }, 100);
  window.addEventListener("message", function listener(message) {
    if (message.data !== "PONG") return;
    clearInterval(timer);
    window.removeEventListener("message", listener);
    ui.postMessage({perfetto: {buffer: bytes.buffer, title: perfettoButton.dataset.title}}, "https://ui.perfetto.dev");
  });
});
"""

COLOURS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]


def esc(value):
    return html.escape(str(value), quote=True)


def number(value, digits=3):
    if value is None:
        return "–"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def mib(value):
    return "–" if value is None else f"{value / 2**20:,.1f} MiB"


def percent(value):
    return "–" if value is None else f"{100 * value:.1f}%"


def image(path):
    return f'<img alt="{esc(Path(path).stem)}" src="data:image/png;base64,{base64.b64encode(Path(path).read_bytes()).decode()}">'


def card(key, label, value):
    return f'<div class="card"><div class="v" id="{key}">{esc(value)}</div><div class="k">{esc(label)}</div></div>'


def cards(figures):
    shown = [("events", "events", number(figures["events"])),
             ("events-per-s", "events/s", number(figures["events_per_s"], 1)),
             ("wall-s", "wall time (s)", number(figures["wall_s"])),
             ("cpu-efficiency", "CPU efficiency", percent(figures["cpu_efficiency"])),
             ("threads", "threads", number(figures["threads"])),
             ("peak-rss", "peak RSS", mib(figures["peak_rss_bytes"]))]
    if figures["processes"]:
        shown.insert(4, ("processes", "processes", number(figures["processes"])))
    if figures["total_pss_bytes"]:
        shown.append(("total-pss", "peak total PSS", mib(figures["total_pss_bytes"])))
    return '<div class="cards">' + "".join(card(*entry) for entry in shown) + "</div>"


def cell(value, text=None, numeric=True):
    shown = text if text is not None else (number(value) if numeric else value)
    sort_key = "" if value is None else value
    return f'<td class="{"n" if numeric else ""}" data-value="{esc(sort_key)}">{esc(shown)}</td>'


def module_table(report):
    rows = inputs.modules(report)
    stalls = any("stall_s" in row for row in rows)
    total = sum(row["total_s"] for row in rows) or 1.0
    head = ["module", "plugin", "kind", "concurrency", "calls", "total s", "share"] + (["stall s"] if stalls else [])
    lines = [f'<table class="sortable" id="modules"><thead><tr>'
             + "".join(f'<th class="{"n" if i >= 4 else ""}">{h}</th>' for i, h in enumerate(head))
             + "</tr></thead><tbody>"]
    for row in rows:
        cells = [cell(row[k], numeric=False) for k in ("label", "plugin", "kind", "concurrency")]
        cells += [cell(row["calls"]), cell(row["total_s"]), cell(row["total_s"] / total, percent(row["total_s"] / total))]
        if stalls:
            cells.append(cell(row.get("stall_s")))
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines.append("</tbody></table>")
    return f"<h2>Modules ({len(rows) - 1} and the source)</h2><p>Click a column to sort.</p>" + "".join(lines)


def thread_time_section(report):
    breakdown = inputs.thread_time(report)
    if not breakdown:
        return ""
    total = sum(breakdown.values()) or 1.0
    bar = "".join(f'<div title="{esc(name)}: {value:.3f} s" style="width:{100 * value / total:.3f}%;'
                  f'background:{COLOURS[i % len(COLOURS)]}"></div>' for i, (name, value) in enumerate(breakdown.items()))
    rows = "".join(f'<tr><td><span style="color:{COLOURS[i % len(COLOURS)]}">&#9632;</span> {esc(name)}</td>'
                   f'<td class="n">{value:.3f}</td><td class="n">{percent(value / total)}</td></tr>'
                   for i, (name, value) in enumerate(breakdown.items()))
    return (f'<h2>Thread time</h2><div class="bar" id="thread-time">{bar}</div>'
            f'<table><thead><tr><th>where</th><th class="n">s</th><th class="n">share</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def milliseconds(seconds):
    return "–" if seconds is None else f"{1e3 * seconds:,.2f} ms"


def parts_said(report):
    """How a merged report's figures were made, for the page to say; "" for a single process's."""
    if "workers" not in report:
        return ""
    parts = len(inputs.worker_reports(report))
    if report.get("mode") == "mpi":
        return f" Merged from the job's {parts} ranks."
    if isinstance(report.get("prefork"), dict):
        return f" Merged from the job's {parts + 1} parts (its workers, and the events before the fork)."
    return f" Merged from the job's {parts} workers."


def figure_table(element_id, rows):
    """A table of (name, the value's element id, value) rows."""
    cells = "".join(f'<tr><th>{esc(name)}</th><td id="{key}">{esc(value)}</td></tr>' for name, key, value in rows)
    return f'<table id="{element_id}"><tbody>{cells}</tbody></table>'


def stalls_section(report):
    """The stall total with the module that stalls most, and the event-time distribution."""
    rows = []
    total = report["thread_time"].get("total_s") if isinstance(report.get("thread_time"), dict) else None
    if isinstance(report.get("stall_s"), (int, float)):
        share = f" ({percent(report['stall_s'] / total)} of thread time)" if total else ""
        rows.append(("stall time", "stall-s", f"{report['stall_s']:.3f} s{share}"))
        worst = max(report.get("modules", []), key=lambda m: m.get("stall_s", 0.0), default=None)
        if worst and worst.get("stall_s", 0.0) > 0:
            rows.append(("stalls most", "stalls-most", f"{worst['label']} ({worst['stall_s']:.3f} s)"))
    times = report.get("event_times")
    if isinstance(times, dict) and times.get("events"):
        rows.append(("event time", "event-times", ", ".join(f"{name} {milliseconds(times.get(key))}" for name, key in
                                                           (("median", "median_s"), ("90%", "p90_s"),
                                                            ("99%", "p99_s"), ("max", "max_s")))))
        if times.get("slowest"):
            rows.append(("slowest events", "slowest", ", ".join(e["event"] for e in times["slowest"])))
    if not rows:
        return ""
    return ("<h2>Stalls and event times</h2><p>Stall time: modules runnable but waiting for their queue."
            f"{parts_said(report)}</p>{figure_table('stalls', rows)}")


def timing_said(sample):
    """Whether the report's times are exact or estimated from one event in `sample` (--monitor-sample)."""
    if sample > 1:
        return f"one event in {sample:,} per lane timed: call counts exact, times estimated"
    return "every call timed"


def monitor_section(report):
    """What the monitor's own timing cost the job, estimated (the report's monitor section)."""
    monitor = report.get("monitor")
    if not isinstance(monitor, dict) or not any(monitor.get(k) for k in ("timed_calls", "timed_waits",
                                                                        "timed_events")):
        return ""
    waits = monitor.get("timed_waits", 0) + monitor.get("timed_events", 0)
    rows = [("estimated cost", "monitor-estimated", milliseconds(monitor.get("estimated_s", 0.0))),
            ("share of thread time", "monitor-share", f"{100 * monitor.get('thread_time_share', 0.0):.2f}%"),
            ("timed calls", "monitor-calls",
             f"{monitor.get('timed_calls', 0):,} x {monitor.get('ns_per_call', 0.0):.1f} ns"),
            ("timed waits and event ends", "monitor-waits", f"{waits:,} x {monitor.get('ns_per_wait', 0.0):.1f} ns"),
            ("timing", "monitor-sample", timing_said(monitor.get("timing_sample", 1)))]
    return ("<h2>The monitor's cost</h2><p>What timing the job cost, estimated: its records times the cost of one, "
            f"measured on the machine as the report was built.{parts_said(report)}</p>{figure_table('monitor', rows)}")


def stall_graph_section(trace):
    """The stall graph drawn from the trace by lanes_plots.stall_graph."""
    if trace is None:
        return ""
    with tempfile.TemporaryDirectory() as directory:
        png = Path(directory) / "stall_graph.png"
        try:
            stall_graph(str(trace), str(png))
        except Exception as error:  # a stall graph that cannot be drawn is said, and the page goes on
            print(f"lanes report: warning: no stall graph: {error}", file=sys.stderr)
            return f"<h2>Stall graph</h2><p>Could not be drawn from {esc(trace)}: {esc(error)}</p>"
        return f'<h2>Stall graph</h2><div id="stall-graph">{image(png)}</div>'


def trace_section(trace):
    if trace is None:
        return ""
    size = trace.stat().st_size
    text = (f"<h2>Timeline</h2><p>The trace <code>{esc(trace)}</code> ({mib(size)}) opens in Perfetto: go to "
            f'<a href="https://ui.perfetto.dev">ui.perfetto.dev</a>, click "Open trace file" and choose it '
            f"(Perfetto reads it in the browser; nothing is uploaded).</p>")
    if size <= TRACE_EMBED_LIMIT:
        data = base64.b64encode(trace.read_bytes()).decode()
        text += (f'<p><button id="open-perfetto" data-title="{esc(trace.name)}">Open this trace in Perfetto</button> '
                 f"(the trace is in this page; the button opens ui.perfetto.dev, which needs the network)</p>"
                 f'<script type="application/octet-stream" id="trace-data">{data}</script>')
    return text


def key_values(title, values, element_id):
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v if isinstance(v, str) else json.dumps(v))}</td></tr>"
                   for k, v in values.items())
    return f'<h2>{esc(title)}</h2><table id="{element_id}"><tbody>{rows}</tbody></table>'


def configuration(report):
    """The report's scalar settings and small sections (pinning, writer...), and its software versions."""
    skip = {"modules", "workers", "versions", "memory", "thread_time", "events_per_s", "wall_s", "events", "monitor",
            "event_times", "stall_s"}
    settings = {k: v for k, v in report.items() if k not in skip and (not isinstance(v, (dict, list)) or
                                                                      len(json.dumps(v)) < 300)}
    versions = report.get("versions") or next((w.get("versions") for w in inputs.worker_reports(report)), {}) or {}
    return key_values("Configuration", settings, "configuration") + key_values("Software", versions, "versions")


def workers_section(report):
    workers = report.get("workers", [])
    if not workers:
        return ""
    rows = ""
    for worker in workers:
        part = worker.get("report") if isinstance(worker.get("report"), dict) else {}
        rows += ("<tr>" + cell(worker.get("part", ""), numeric=False)
                 + cell(worker.get("pid"), str(worker.get("pid"))) + cell(part.get("events")) + cell(part.get("events_per_s"))
                 + cell(part.get("wall_s")) + "</tr>")
    return (f'<h2>Workers</h2><table class="sortable" id="workers"><thead><tr><th>worker</th><th class="n">pid</th>'
            f'<th class="n">events</th><th class="n">events/s</th><th class="n">wall s</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def run_body(source, trace, title):
    report = source["report"]
    failed = (f'<p class="failed" id="failure">The job failed: {esc(report.get("error", ""))}</p>'
              if report.get("failed") else "")
    return (f"<h1>{esc(title)}</h1>{failed}{cards(inputs.figures(report))}"
            + thread_time_section(report) + stalls_section(report) + monitor_section(report)
            + stall_graph_section(trace) + module_table(report)
            + workers_section(report) + trace_section(trace) + configuration(report))


def spread_text(spread, digits=1, scale=1.0):
    if not spread:
        return "–"
    return (f"{spread['median'] / scale:,.{digits}f} ({spread['min'] / scale:,.{digits}f} – "
            f"{spread['max'] / scale:,.{digits}f})")


def scan_table(points):
    axes = list(points[0]["axes"]) if points else []
    head = "".join(f"<th>{esc(a)}</th>" for a in axes) + ('<th class="n">runs</th><th class="n">failed</th>'
                                                         '<th class="n">events/s (median, min – max)</th>'
                                                         '<th class="n">CPU efficiency</th><th class="n">wall s</th>')
    rows = ""
    for point in points:
        rate, efficiency, wall = point.get("events_per_s"), point.get("cpu_efficiency"), point.get("wall_s")
        rows += ("<tr>" + "".join(cell(point["axes"][a], numeric=False) for a in axes) + cell(point["runs"])
                 + cell(point["failed_runs"]) + cell(rate["median"] if rate else None, spread_text(rate))
                 + cell(efficiency["median"] if efficiency else None, percent(efficiency and efficiency["median"]))
                 + cell(wall["median"] if wall else None, spread_text(wall, 3)) + "</tr>")
    return (f'<h2>Points</h2><table class="sortable" id="points"><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def scan_body(source, title):
    points = source["summary"]
    manifest = source["manifest"]
    best = max((p for p in points if p.get("events_per_s")), key=lambda p: p["events_per_s"]["median"], default=None)
    runs = sum(p["runs"] for p in points)
    failed = sum(p["failed_runs"] for p in points)
    summary = [card("point-count", "points", number(len(points))), card("runs", "runs", number(runs)),
               card("failed-runs", "failed runs", number(failed))]
    if best:
        summary.append(card("best-events-per-s", "best events/s (" + ", ".join(f"{k}={v}" for k, v in
                                                                                best["axes"].items()) + ")",
                            number(best["events_per_s"]["median"], 1)))
    plots = "".join(f'<figure id="plot-{esc(p.stem)}">{image(p)}<figcaption>{esc(p.stem)}</figcaption></figure>'
                    for p in source["plots"])
    settings = {k: v for k, v in manifest.items() if not isinstance(v, (dict, list)) or len(json.dumps(v)) < 300}
    versions = next((r["versions"] for r in map(load_quietly, source["reports"]) if r and "versions" in r), {})
    return (f"<h1>{esc(title)}</h1>"
            f'<div class="cards">{"".join(summary)}</div>{scan_table(points)}'
            + (f"<h2>Plots</h2>{plots}" if plots else "")
            + key_values("Configuration", settings, "configuration") + key_values("Software", versions, "versions"))


def load_quietly(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def render(source, trace=None, title=None):
    """The page of a loaded run report or scan (inputs.load()); `trace` is the run's trace file, if any; the
    title is "lanes run: NAME" (or scan) after the input's name unless given."""
    title = title or f"lanes {source['kind']}: {source['path'].name}"
    body = run_body(source, trace, title) if source["kind"] == "run" else scan_body(source, title)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
            f"<style>{STYLE}</style></head><body>{body}"
            f"<script>{SORT_SCRIPT}{PERFETTO_SCRIPT}</script></body></html>\n")
