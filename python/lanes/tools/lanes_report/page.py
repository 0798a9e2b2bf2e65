"""The HTML report: one self-contained file (inline CSS, SVG charts and script; the stall graph as a data URI) that
opens offline, from file://. A run's page, a scan's, and a comparison's."""

import base64
import html
import os
import shlex
import sys
import tempfile
from pathlib import Path

from ..lanes_plots.stall_graph import stall_graph

from . import drawings, inputs, provenance

TRACE_EMBED_LIMIT = 16 * 1024 * 1024  # larger traces are named, not embedded: the page must stay openable

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:20px auto;max-width:1180px;color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:6px} h2{font-size:17px;margin-top:26px;border-bottom:1px solid #ddd}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid #ccd;border-radius:6px;padding:8px 14px;min-width:110px;background:#f7f8fc}
.card .v{font-size:20px;font-weight:600} .card .k{color:#666;font-size:12px}
.failed,.warning{border-radius:6px;padding:8px 12px} .failed{background:#fde8e8;border:1px solid #e99}
.warning{background:#fff6e0;border:1px solid #e8c35a}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:8px 24px}
figure.chart{margin:10px 0} figure.chart.wide{grid-column:1/-1}
figcaption{font-weight:600;margin-bottom:2px} svg{display:block;max-width:100%}
.note{color:#666;font-size:12px;margin:2px 0 0}
table{border-collapse:collapse;margin:6px 0} td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:left}
th{font-weight:600} td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
th.sortable{cursor:pointer;user-select:none} th.sortable:after{content:" \\2195";color:#aaa}
.scroll{max-height:440px;overflow:auto;border:1px solid #eee}
.scroll thead th{position:sticky;top:0;background:#fff}
img{max-width:100%;border:1px solid #eee;margin:6px 0} code{background:#f3f3f3;padding:1px 4px}
tr.differs td{background:#fff6e0}
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


def milliseconds(seconds):
    return "–" if seconds is None else f"{1e3 * seconds:,.2f} ms"


def image(path):
    return f'<img alt="{esc(Path(path).stem)}" src="data:image/png;base64,{base64.b64encode(Path(path).read_bytes()).decode()}">'


def card(key, label, value):
    return f'<div class="card"><div class="v" id="{key}">{esc(value)}</div><div class="k">{esc(label)}</div></div>'


def cards(figures, parts="processes"):
    shown = [("events", "events", number(figures["events"])),
             ("events-per-s", "events/s", number(figures["events_per_s"], 1)),
             ("wall-s", "wall time (s)", number(figures["wall_s"])),
             ("cpu-efficiency", "CPU efficiency", percent(figures["cpu_efficiency"])),
             ("threads", "threads", number(figures["threads"])),
             ("peak-rss", "peak RSS", mib(figures["peak_rss_bytes"]))]
    if figures["processes"]:
        shown.insert(4, ("processes", parts, number(figures["processes"])))
    if figures["total_pss_bytes"]:
        shown.append(("total-pss", "peak total PSS", mib(figures["total_pss_bytes"])))
    return '<div class="cards">' + "".join(card(*entry) for entry in shown) + "</div>"


def cell(value, text=None, numeric=True):
    shown = text if text is not None else (number(value) if numeric else value)
    sort_key = "" if value is None else value
    return f'<td class="{"n" if numeric else ""}" data-value="{esc(sort_key)}">{esc(shown)}</td>'


def sortable(element_id, head, rows, numeric_from):
    """A table sorted by clicking a column; `rows` are lists of cell() texts."""
    header = "".join(f'<th class="{"n" if i >= numeric_from else ""}">{esc(h)}</th>' for i, h in enumerate(head))
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f'<table class="sortable" id="{element_id}"><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>'


def module_table(report):
    rows = inputs.modules(report)
    stalls = any("stall_s" in row for row in rows)
    total = sum(row["total_s"] for row in rows) or 1.0
    head = ["module", "plugin", "kind", "concurrency", "calls", "total s", "share"] + (["stall s"] if stalls else [])
    cells = []
    for row in rows:
        line = [cell(row[k], numeric=False) for k in ("label", "plugin", "kind", "concurrency")]
        line += [cell(row["calls"]), cell(row["total_s"]), cell(row["total_s"] / total, percent(row["total_s"] / total))]
        if stalls:
            line.append(cell(row.get("stall_s")))
        cells.append(line)
    return (f"<h2>Modules ({len(rows) - 1} and the source)</h2><p>By total time; click a column to sort.</p>"
            f'<div class="scroll">{sortable("modules", head, cells, 4)}</div>')


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
    """A table of (name, the value's element id, value[, title]) rows."""
    cells = "".join(f'<tr><th>{esc(row[0])}</th><td id="{row[1]}"'
                    + (f' title="{esc(row[3])}"' if len(row) > 3 and row[3] else "") + f">{esc(row[2])}</td></tr>"
                    for row in rows)
    return f'<table id="{element_id}"><tbody>{cells}</tbody></table>'


def stalls_section(report):
    """The stall total with the module that stalls most, and the event-time percentiles."""
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


def trace_section(trace, page_directory):
    """The trace: a link to the file beside the page, how to open it in Perfetto (offline too), and, when it is not
    too large, a button that hands the embedded copy to ui.perfetto.dev."""
    if trace is None:
        return ""
    size = trace.stat().st_size
    link = Path(os.path.relpath(trace.resolve(), page_directory.resolve())).as_posix()
    text = (f'<h2>Timeline</h2><p id="trace">The job\'s trace: <a id="trace-file" href="{esc(link)}">'
            f"{esc(trace.name)}</a> ({mib(size)}, every module call on a thread's row). Open it in Perfetto: "
            f'<a href="https://ui.perfetto.dev">ui.perfetto.dev</a>, "Open trace file", choose the file; Perfetto '
            f"reads it in the browser and uploads nothing. Offline: the Perfetto UI works without the network once "
            f"the browser has opened it (it caches itself), or run Perfetto's <code>trace_processor --httpd "
            f"{esc(trace.name)}</code> and open ui.perfetto.dev, which then uses it.</p>")
    if size <= TRACE_EMBED_LIMIT:
        data = base64.b64encode(trace.read_bytes()).decode()
        text += (f'<p><button id="open-perfetto" data-title="{esc(trace.name)}">Open this trace in Perfetto</button> '
                 f"(the trace is in this page, so the page alone is enough; the button opens ui.perfetto.dev, which "
                 f"needs the network the first time)</p>"
                 f'<script type="application/octet-stream" id="trace-data">{data}</script>')
    return text


def provenance_section(record, title="What ran, where"):
    rows = provenance.rows(record)
    if not rows:
        return (f"<h2>{esc(title)}</h2><p id=\"provenance\">Not recorded: the report was written by an older lanes.</p>")
    return f"<h2>{esc(title)}</h2>" + figure_table("provenance", [(name, f"provenance-{i}", text, full)
                                                                   for i, (name, text, full) in enumerate(rows)])


SHOWN_ELSEWHERE = {"modules", "workers", "versions", "memory", "activity", "thread_time", "events_per_s", "wall_s",
                   "events", "monitor", "event_times", "stall_s", "provenance", "path_report", "lane_idle_s",
                   "threads", "processes", "cpu_efficiency", "peak_rss_bytes", "failed", "error", "source", "prefork",
                   "schedule", "call_times", "model"}


def label(key):
    """A key as a person reads it: its unit suffix dropped (the value says it), underscores as spaces."""
    for suffix in ("_bytes", "_s"):
        key = key.removesuffix(suffix)
    return key.replace("_", " ")


def pretty(key, value):
    """A value with its unit and a sensible rounding; None for what is not worth a line (empty, false, null)."""
    if value is None or value == "" or value == [] or value == {} or value is False:
        return None
    if value is True:
        return "yes"
    if isinstance(value, (int, float)):
        if key.endswith("_bytes"):
            return mib(value)
        if key.endswith("_s"):
            return f"{value:,.3f} s"
        if key.endswith(("efficiency", "share")):
            return percent(value)
        return f"{value:,}" if isinstance(value, int) else f"{value:,.4g}"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        parts = [(label(k), pretty(k, v)) for k, v in value.items()]
        return ", ".join(f"{k} {v}" for k, v in parts if v is not None) or None
    if all(isinstance(v, dict) for v in value):
        return "; ".join(filter(None, (pretty(key, v) for v in value))) or None
    return ", ".join(filter(None, (pretty(key, v) for v in value))) or None


def configuration(report):
    """The report's other settings and small sections (lanes, pinning, distribution, writer...), legibly."""
    rows = [(label(key), pretty(key, value)) for key, value in report.items() if key not in SHOWN_ELSEWHERE]
    cells = "".join(f"<tr><th>{esc(name)}</th><td>{esc(text)}</td></tr>" for name, text in rows if text is not None)
    return f'<h2>Configuration</h2><table id="configuration"><tbody>{cells}</tbody></table>'


def workers_section(report):
    workers = report.get("workers", [])
    if not workers:
        return ""
    rows = []
    for worker in workers:
        part = worker.get("report") if isinstance(worker.get("report"), dict) else {}
        host = worker.get("host") or (part.get("provenance") or {}).get("host", "")
        rows.append([cell(worker.get("part", ""), numeric=False), cell(host, numeric=False),
                     cell(worker.get("pid"), str(worker.get("pid"))), cell(worker.get("status", ""), numeric=False),
                     cell(part.get("events")), cell(part.get("events_per_s"), number(part.get("events_per_s"), 1)),
                     cell(part.get("wall_s"))])
    name = "Ranks" if report.get("mode") == "mpi" else "Workers"
    return (f"<h2>{name}</h2>" + sortable("workers", [name[:-1].lower(), "host", "pid", "status", "events",
                                                      "events/s", "wall s"], rows, 2))


def charts_section(body):
    return f'<div class="charts">{body}</div>' if body else ""


def model_said(report):
    """What a prediction (lanes model) was predicted from, and what it found busiest; "" for a run's report."""
    model = report.get("model")
    if not isinstance(model, dict):
        return ""
    measured = model["input"]
    said = (f"A prediction by lanes model, not a measurement: from {measured['report']} ({measured['threads']} "
            f"threads, {measured['lanes']} lanes, {measured['processes']} processes: "
            f"{measured['events_per_s']:,.1f} events/s measured).")
    if model.get("bottleneck"):
        busiest = model["bottleneck"]
        said += (f" Busiest: {busiest['name']} ({busiest['kind']}), {percent(busiest['utilization'])} busy"
                 + (", saturated." if busiest.get("saturated") else "."))
    if model.get("saturation"):
        first = model["saturation"]
        said += (f" First to saturate: {first['name']} ({first['kind']}) at {first['threads']} threads, "
                 f"{first['lanes']} lanes, {first['processes']} processes.")
    return f'<p class="warning" id="model">{esc(said)}</p>'


def run_body(source, trace, title, page_directory):
    report = source["report"]
    failed = (f'<p class="failed" id="failure">The job failed: {esc(report.get("error", ""))}</p>'
              if report.get("failed") else "") + model_said(report)
    parts = "ranks" if report.get("mode") == "mpi" else "processes"
    return (f"<h1>{esc(title)}</h1>{failed}{cards(inputs.figures(report), parts)}"
            + charts_section(drawings.run_charts(report)) + stalls_section(report) + monitor_section(report)
            + stall_graph_section(trace) + module_table(report) + workers_section(report)
            + trace_section(trace, page_directory) + provenance_section(report.get("provenance"))
            + configuration(report))


def spread_text(spread, digits=1, scale=1.0):
    if not spread:
        return "–"
    return (f"{spread['median'] / scale:,.{digits}f} ({spread['min'] / scale:,.{digits}f} – "
            f"{spread['max'] / scale:,.{digits}f})")


def scan_table(points):
    axes = list(points[0]["axes"]) if points else []
    rows = []
    for point in points:
        rate, efficiency, wall = point.get("events_per_s"), point.get("cpu_efficiency"), point.get("wall_s")
        rows.append([cell(point["axes"][a], numeric=False) for a in axes]
                    + [cell(point["runs"]), cell(point["failed_runs"]),
                       cell(rate["median"] if rate else None, spread_text(rate)),
                       cell(efficiency["median"] if efficiency else None, percent(efficiency and efficiency["median"])),
                       cell(wall["median"] if wall else None, spread_text(wall, 3))])
    head = axes + ["runs", "failed", "events/s (median, min – max)", "CPU efficiency", "wall s"]
    return "<h2>Points</h2>" + sortable("points", head, rows, len(axes))


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
    scan = manifest.get("scan") if isinstance(manifest.get("scan"), dict) else {}
    settings = [("run arguments", shlex.join(scan.get("run_arguments") or []) or None),
                ("axes", "; ".join(f"{name} = {', '.join(map(str, values))}"
                                   for name, values in (scan.get("axes") or {}).items()) or None)]
    settings += [(name, pretty(name, scan.get(name))) for name in ("procedure", "events", "repeat", "cores")]
    return (f"<h1>{esc(title)}</h1>"
            f'<div class="cards">{"".join(summary)}</div>'
            + charts_section(drawings.scan_charts(points)) + scan_table(points)
            + provenance_section(manifest.get("provenance"), "What ran, where (the scan; each run's report has its own)")
            + '<h2>Configuration</h2><table id="configuration"><tbody>'
            + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in settings if v is not None)
            + "</tbody></table>")


FIGURE_NAMES = {"events_per_s": "events/s", "wall_s": "wall time", "cpu_s": "CPU time", "cpu_efficiency":
                "CPU efficiency", "peak_rss_bytes": "peak RSS", "total_pss_bytes": "peak total PSS",
                "stall_s": "stall time", "monitor_ms": "the monitor's cost"}


def figure_text(name, value):
    """A compared figure with its unit (inputs.figures())."""
    if value is None:
        return "–"
    if name == "events_per_s":
        return f"{value:,.1f}"
    return f"{value:,.2f} ms" if name == "monitor_ms" else pretty(name, value)


def comparison_body(result, title):
    warning = provenance.warning(result["provenance"]["differences"])
    said = f'<p class="warning" id="provenance-warning">{esc(warning)}</p>' if warning else ""
    sides = f"<p>A: <code>{esc(result['a'])}</code><br>B: <code>{esc(result['b'])}</code></p>"
    if result["kind"] == "run":
        rows = [[cell(FIGURE_NAMES.get(f["name"], label(f["name"])), numeric=False),
                 cell(f["a"], figure_text(f["name"], f["a"])), cell(f["b"], figure_text(f["name"], f["b"])),
                 cell(f["ratio"], "–" if f["ratio"] is None else f"{f['ratio']:.3f}")] for f in result["figures"]]
        body = (charts_section(drawings.compare_modules_chart(result))
                + "<h2>Figures</h2>" + sortable("figures", ["figure", "A", "B", "B/A"], rows, 1))
    else:
        rows = [[cell(" ".join(f"{k}={v}" for k, v in p["axes"].items()), numeric=False),
                 cell(p["metrics"]["events_per_s"]["a"] and p["metrics"]["events_per_s"]["a"]["median"]),
                 cell(p["metrics"]["events_per_s"]["b"] and p["metrics"]["events_per_s"]["b"]["median"]),
                 cell(p["metrics"]["events_per_s"]["ratio"]),
                 cell(str(p["metrics"]["events_per_s"]["beyond_spread"]), numeric=False)] for p in result["points"]]
        body = (charts_section(drawings.compare_scans_chart(result))
                + "<h2>Points</h2>" + sortable("points", ["point", "events/s A", "events/s B", "B/A",
                                                          "beyond the spread"], rows, 1))
    return f"<h1>{esc(title)}</h1>{said}{sides}{body}" + provenance_pair(result)


def provenance_pair(result):
    """The two provenances side by side, the rows that differ marked."""
    a = {name: text for name, text, _ in provenance.rows(result["provenance"]["a"])}
    b = {name: text for name, text, _ in provenance.rows(result["provenance"]["b"])}
    names = list(a) + [n for n in b if n not in a]
    rows = "".join(f'<tr class="{"differs" if a.get(n) != b.get(n) else ""}"><th>{esc(n)}</th><td>{esc(a.get(n, "–"))}'
                   f'</td><td>{esc(b.get(n, "–"))}</td></tr>' for n in names if n != "command")
    return ('<h2>What ran, where</h2><table id="provenance"><thead><tr><th></th><th>A</th><th>B</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def document(title, body):
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{STYLE}</style></head><body>{body}"
            f"<script>{SORT_SCRIPT}{PERFETTO_SCRIPT}</script></body></html>\n")


def render(source, trace=None, title=None, page_directory=Path(".")):
    """The page of a loaded run report or scan (inputs.load()); `trace` is the run's trace file, if any, linked from
    the page in `page_directory`; the title is "lanes run: NAME" (or scan) after the input's name unless given."""
    title = title or f"lanes {source['kind']}: {source['path'].name}"
    body = (run_body(source, trace, title, page_directory) if source["kind"] == "run" else scan_body(source, title))
    return document(title, body)


def render_comparison(result, title):
    """The page of a comparison (comparison.compare()), with its provenance warning when there is one."""
    return document(title, comparison_body(result, title))
