"""Which charts a page gets, and their figures, from the JSON lanes wrote: a run report (a single process's, or a
multi-process or MPI job's merged one), a scan's summary, a comparison. A chart whose figures the report lacks is
left out."""

from ..lanes_scan.plots import lines, speedups, varying

from . import charts
from .charts import COLOURS, GREY, STALL

MIB = 2**20
TOP_MODULES = 12  # the time chart's module bars; the rest are one bar
BUCKETS_PER_BIN = 8  # the event-time histogram's bins: 8 of the report's buckets (1/8 octave, about 9% wide)


def number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def time_rows(report):
    """The time chart's rows: the modules that are not outputs by total time (their stall stacked on), the rest of
    them as one row, then source, outputs, run and lumi transitions, overhead, boundary wait and idle from the
    thread-time breakdown."""
    modules = [m for m in report.get("modules", []) if m.get("kind") != "output"]
    modules.sort(key=lambda m: -number(m.get("total_s")))
    outputs = [m for m in report.get("modules", []) if m.get("kind") == "output"]

    def row(label, own, stall, colour=COLOURS[0], tooltip=None):
        parts = [("own", own, colour)] + ([("stall", stall, STALL)] if stall else [])
        text = tooltip or f"{label}: {own:,.3f} s in its calls" + (f", {stall:,.3f} s stalled" if stall else "")
        return label, parts, text

    rows = [row(m["label"], number(m.get("total_s")), number(m.get("stall_s"))) for m in modules[:TOP_MODULES]]
    rest = modules[TOP_MODULES:]
    if rest:
        rows.append(row(f"({len(rest)} more modules)", sum(number(m.get("total_s")) for m in rest),
                        sum(number(m.get("stall_s")) for m in rest), COLOURS[7]))
    breakdown = report.get("thread_time") if isinstance(report.get("thread_time"), dict) else {}
    rows.append(row("source", number(breakdown.get("source_s", report.get("source_s"))), 0.0, COLOURS[2]))
    rows.append(row("outputs", number(breakdown.get("outputs_s", report.get("outputs_s"))),
                    sum(number(m.get("stall_s")) for m in outputs), COLOURS[1]))
    if breakdown:
        if number(breakdown.get("transitions_s")):
            rows.append(row("transitions", number(breakdown.get("transitions_s")), 0.0, COLOURS[5],
                            "transitions: the modules' begin and end of runs and lumis"))
        rows.append(row("overhead", number(breakdown.get("overhead_s")), 0.0, COLOURS[4],
                        "overhead: CPU time outside the calls (scheduling, oneTBB's spinning)"))
        if number(breakdown.get("boundary_s")):
            rows.append(row("boundary wait", number(breakdown.get("boundary_s")), 0.0, COLOURS[3],
                            "boundary wait: lanes idle at run and lumi boundaries (no lumi slot free, or a begin "
                            "transition running)"))
        rows.append(row("idle", number(breakdown.get("idle_s")), 0.0, GREY, "idle: threads without work"))
    return rows


def time_chart(report):
    if not report.get("modules") and not isinstance(report.get("thread_time"), dict):
        return ""
    total = (report.get("thread_time") or {}).get("total_s")
    note = (f"{total:,.3f} s of thread time (threads × wall time); " if isinstance(total, (int, float)) else "") + \
        "orange: time runnable but waiting for the module's queue (stall), on top of its calls"
    return charts.bar_chart("chart-time", "Where the threads' time went", time_rows(report), "seconds", note)


def event_bins(times):
    """[(low_s, high_s, count)] of the event-time histogram, its buckets grouped BUCKETS_PER_BIN to a bin."""
    histogram = times.get("histogram") if isinstance(times, dict) else None
    if not isinstance(histogram, dict) or not histogram.get("counts"):
        return []
    per_octave = histogram.get("buckets_per_octave", 64)
    grouped = {}
    for bucket, count in histogram["counts"]:
        grouped[bucket // BUCKETS_PER_BIN] = grouped.get(bucket // BUCKETS_PER_BIN, 0) + count
    return [(2 ** (g * BUCKETS_PER_BIN / per_octave), 2 ** ((g + 1) * BUCKETS_PER_BIN / per_octave), count)
            for g, count in sorted(grouped.items())]


def event_time_chart(report):
    times = report.get("event_times")
    bins = event_bins(times)
    if not bins:
        return ""
    markers = [(name, times[key]) for name, key in (("median", "median_s"), ("90%", "p90_s"), ("99%", "p99_s"),
                                                     ("max", "max_s")) if number(times.get(key)) > 0]
    return charts.histogram("chart-event-times", "Event times", bins, markers,
                            f"{times['events']:,} events timed, from the source's read to the event's end")


def sampled(report, key):
    """[(name, samples)] of a sampled series (memory, activity): a single process's, or each part's of a merged
    report (on the job's clock)."""
    section = report.get(key)
    if not isinstance(section, dict):
        return []
    if isinstance(section.get("workers"), list):
        return [(w.get("part", f"part {i}"), w.get("samples", [])) for i, w in enumerate(section["workers"])
                if w.get("samples")]
    return [("", section["samples"])] if section.get("samples") else []


def memory_chart(report):
    parts = sampled(report, "memory")
    if not parts:
        return ""
    series = [(name or "RSS", [(t, rss / MIB) for t, rss in samples], COLOURS[i % len(COLOURS)], False)
              for i, (name, samples) in enumerate(parts)]
    return charts.line_chart("chart-memory", "Memory over time", series, "seconds since the start", "RSS (MiB)",
                             note="resident set size, sampled" + (" in each part" if parts[0][0] else ""))


def activity_chart(report):
    parts = sampled(report, "activity")
    if not parts:
        return ""
    series = []
    for i, (name, samples) in enumerate(parts):
        colour = COLOURS[i % len(COLOURS)] if name else COLOURS[0]
        prefix = f"{name}: " if name else ""
        series.append((prefix + "busy threads", [(t, busy) for t, busy, _ in samples], colour, False))
        series.append((prefix + "events in flight", [(t, events) for t, _, events in samples],
                       colour if name else COLOURS[1], True))
    merged = bool(parts[0][0])
    lumis = lumis_in_flight(report, [t for t, _, _ in parts[0][1]]) if not merged else []
    if lumis:
        series.append(("lumis in flight", lumis, COLOURS[3], True))
    references = [] if merged else [(f"{report[key]} {key}", report[key], "#777") for key in ("threads", "lanes")
                                    if isinstance(report.get(key), int)]
    keys = ([(name, COLOURS[i % len(COLOURS)], None) for i, (name, _) in enumerate(parts)]
            + [("busy threads", "#555", False), ("events in flight", "#555", True)]) if merged else None
    return charts.line_chart("chart-activity", "Concurrency over time", series, "seconds since the start", "count",
                             references, keys=keys, note="busy threads: CPU time per second of each sample's "
                             "interval; events in flight: lanes holding an event, at each sample"
                             + ("; lumis in flight: from their slot taken to their end (runs_and_lumis.timeline)"
                                if lumis else ""))


def lumis_in_flight(report, times):
    """[(t, lumis in flight at t)] at the activity samples' times, where the job had more than one lumi."""
    blocks = report.get("runs_and_lumis")
    timeline = blocks.get("timeline") if isinstance(blocks, dict) else None
    lumis = timeline.get("lumis") if isinstance(timeline, dict) else None
    if not lumis or len(lumis) < 2:
        return []
    return [(t, sum(1 for opened, _, ended, *_ in lumis if opened <= t < ended)) for t in times]


def model_chart(report):
    """A prediction's (lanes model) events/s against the axis its curve varies, with the measured runs as points: the
    run it was predicted from and those given with --measured."""
    model = report.get("model")
    if not isinstance(model, dict):
        return ""
    curve = model.get("curve") if isinstance(model.get("curve"), dict) else {}
    axis = curve.get("axis") or "threads"
    predicted = [(p[axis], p["events_per_s"]) for p in curve.get("points", [])]
    if not predicted:
        predicted = [(model["layout"][axis], report["events_per_s"])]
    measured = sorted((m[axis], m["events_per_s"]) for m in [model["input"]] + model.get("measured", []))
    series = [(name, [(x, rate, rate, rate) for x, rate in points])
              for name, points in (("predicted", predicted), ("measured", measured))]
    return charts.point_chart("chart-model", f"Predicted events/s against {axis}, with the measured runs", series, axis,
                              "events/s", note="predicted by lanes model from the measured run; the measured points "
                              "are joined in the order of the axis")


def run_charts(report):
    return "".join([model_chart(report), time_chart(report), event_time_chart(report), memory_chart(report),
                    activity_chart(report)])


def scan_charts(points):
    """Against threads when they vary: events/s (ideal scaling dashed), speed-up and CPU efficiency, a line per value
    of the other axes; otherwise events/s per point."""
    names = varying(points)
    if "threads" in names:
        others = [n for n in names if n != "threads"]
        rate = {k or "": v for k, v in lines(points, "threads", others, "events_per_s").items()}
        efficiency = {k or "": [(x, 100 * m, 100 * lo, 100 * hi) for x, m, lo, hi in v]
                      for k, v in lines(points, "threads", others, "cpu_efficiency").items()}
        return (charts.point_chart("chart-scan-rate", "Events/s against threads", list(rate.items()), "threads",
                                   "events/s", ideal=True, note="median, with the runs' min–max")
                + charts.point_chart("chart-scan-speedup", "Speed-up against threads", list(speedups(rate).items()),
                                     "threads", "× its fewest threads' rate", ideal=True)
                + charts.point_chart("chart-scan-efficiency", "CPU efficiency against threads",
                                     list(efficiency.items()), "threads", "CPU efficiency (%)"))
    rows = [(" ".join(f"{k}={v}" for k, v in p["axes"].items()) or p.get("point", "the point"),
             [("median", p["events_per_s"]["median"], COLOURS[0])],
             f"median {p['events_per_s']['median']:,.1f} events/s (min {p['events_per_s']['min']:,.1f}, max "
             f"{p['events_per_s']['max']:,.1f})") for p in points if p.get("events_per_s")]
    return charts.bar_chart("chart-scan-rate", "Events/s per point", rows, "events/s (median)") if rows else ""


def compare_modules_chart(result, top=TOP_MODULES):
    """The modules that changed most: A's and B's total time (stall stacked) one above the other."""
    rows = []
    for module in result["modules"][:top]:
        for side, colour in (("a", COLOURS[0]), ("b", COLOURS[1])):
            own = number(module.get(f"{side}_s"))
            stall = number(module.get(f"{side}_stall_s"))
            rows.append((f"{module['label']} ({side.upper()})",
                         [("own", own, colour)] + ([("stall", stall, STALL)] if stall else []),
                         f"{module['label']} in {side.upper()}: {own:,.3f} s" + (f", {stall:,.3f} s stalled"
                                                                                if stall else "")))
    if not rows:
        return ""
    return charts.bar_chart("chart-compare-modules", "The modules that changed most", rows, "seconds",
                            "total time of their calls in A (blue) and B (orange); stall on top")


def compare_scans_chart(result):
    rows = []
    for point in result["points"]:
        label = " ".join(f"{k}={v}" for k, v in point["axes"].items()) or "(the one point)"
        for side, colour in (("a", COLOURS[0]), ("b", COLOURS[1])):
            rate = point["metrics"]["events_per_s"][side]
            if rate:
                rows.append((f"{label} ({side.upper()})", [("median", rate["median"], colour)],
                             f"{label} in {side.upper()}: {rate['median']:,.1f} events/s"))
    if not rows:
        return ""
    return charts.bar_chart("chart-compare-points", "Events/s per point", rows, "events/s (median)",
                            "A blue, B orange")
