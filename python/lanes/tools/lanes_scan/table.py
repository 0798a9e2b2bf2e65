"""The scan's tidy table (one row per run, every axis a column) and its per-point summary, from the reports."""

import csv
import statistics

from .runner import read_json, write_json

METRICS = ("events_per_s", "wall_s", "cpu_efficiency", "peak_rss_bytes", "total_pss_bytes")


def copy_figures(report):
    """{events, events_per_s, wall_s, cpu_s, threads, peak_rss_bytes, total_pss_bytes} of one copy's report:
    single-process, or multi-process (whose CPU and threads its parent merged from the parts under the same keys,
    whose memory is the peak total PSS of the job)."""
    figures = {"events": report["events"], "events_per_s": report["events_per_s"], "wall_s": report["wall_s"],
               "cpu_s": report["cpu_user_s"] + report["cpu_sys_s"], "threads": report["threads"]}
    if "workers" not in report:
        return figures | {"peak_rss_bytes": report["peak_rss_bytes"], "total_pss_bytes": None}
    memory = report.get("memory", {})
    return figures | {"peak_rss_bytes": memory.get("total_rss_bytes"),
                      "total_pss_bytes": memory.get("peak_total_pss_bytes") or memory.get("total_pss_bytes")}


def combine(copies):
    """A run's figures from its concurrent copies: rates, events, CPU and memory add up; the wall is the longest."""
    wall = max(c["wall_s"] for c in copies)
    threads = sum(c["threads"] for c in copies)

    def total(key):
        values = [c[key] for c in copies]
        return None if None in values else sum(values)

    return {"events": total("events"), "events_per_s": total("events_per_s"), "wall_s": wall,
            "cpu_efficiency": total("cpu_s") / (threads * wall) if threads and wall > 0 else None,
            "peak_rss_bytes": total("peak_rss_bytes"), "total_pss_bytes": total("total_pss_bytes")}


def row(run, meta):
    """The table's row of one finished run (figures empty when a copy has no valid report)."""
    figures = dict.fromkeys(("events",) + METRICS)
    reports = [read_json(path) for path in run.reports]
    try:
        if meta["status"] == "ok":
            figures = combine([copy_figures(report) for report in reports])
    except (KeyError, TypeError, ValueError) as error:
        meta = {**meta, "status": "failed", "error": f"unreadable report: {error}"}
    return {"run": run.id, "point": run.point.id, "repeat": run.repeat, **run.point.typed(),
            "threads": run.plan["threads"], "processes": run.plan["processes"], "copies": run.plan["copies"],
            "events_requested": run.plan["events"], **figures, "failed": meta["status"] != "ok",
            "error": meta["error"]}


def rows_of(runs, directory, meta_path):
    """Rows of every run that has ended (ok or failed), in run order."""
    rows = []
    for run in runs:
        meta = read_json(meta_path(directory, run))
        if meta:
            rows.append(row(run, meta))
    return rows


def write_table(rows, axis_names, directory):
    columns = ["run", "point", "repeat", *axis_names]
    columns += [c for c in ("threads", "processes", "copies", "events_requested", "events", *METRICS, "failed",
                            "error") if c not in columns]
    write_json(directory / "table.json", {"columns": columns, "rows": rows})
    temporary = directory / "table.csv.tmp"
    with open(temporary, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        writer.writerows({c: ("" if r.get(c) is None else r.get(c)) for c in columns} for r in rows)
    temporary.replace(directory / "table.csv")


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def summarise(points, rows, directory):
    """summary.json: per point, its axes, runs and failed runs, and each metric's median, min and max."""
    summary = []
    for point in points:
        mine = [r for r in rows if r["point"] == point.id]
        good = [r for r in mine if not r["failed"]]
        entry = {"point": point.id, "axes": point.typed(), "threads": mine[0]["threads"] if mine else None,
                 "processes": mine[0]["processes"] if mine else None, "runs": len(mine),
                 "failed_runs": len(mine) - len(good), "errors": sorted({r["error"] for r in mine if r["failed"]})}
        entry.update({metric: spread(r[metric] for r in good) for metric in METRICS})
        summary.append(entry)
    write_json(directory / "summary.json", {"points": summary})
    return summary
