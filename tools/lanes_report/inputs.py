"""What the report and the comparison read: a run report (single- or multi-process) or a scan directory.

Only the JSON that lanes writes is read (reports, a scan's manifest.json and summary.json, its plots).
"""

import argparse
import json
from pathlib import Path


class InputError(Exception):
    """Bad input, said in one line."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are InputErrors (one line, exit status 2), not a usage text."""

    def error(self, message):
        raise InputError(message)


def read_json(path, what):
    try:
        return json.loads(Path(path).read_text())
    except OSError as error:
        raise InputError(f"cannot read {what} {path}: {error.strerror}")
    except ValueError as error:
        raise InputError(f"{what} {path} is not JSON: {error}")


def is_report(value):
    return isinstance(value, dict) and "events_per_s" in value and "wall_s" in value


def load(path):
    """{"kind": "run", "report": {...}, "path": P} or {"kind": "scan", "manifest", "summary", "plots", "path"}."""
    path = Path(path)
    if path.is_dir():
        if not (path / "summary.json").is_file():
            raise InputError(f"{path} is not a scan directory (it has no summary.json: run `lanes scan -o {path}`)")
        summary = read_json(path / "summary.json", "the scan summary")
        if not isinstance(summary, dict) or not isinstance(summary.get("points"), list):
            raise InputError(f"{path / 'summary.json'} is not a scan summary (no points)")
        manifest = read_json(path / "manifest.json", "the scan manifest") if (path / "manifest.json").is_file() else {}
        plots = sorted((path / "plots").glob("*.png")) if (path / "plots").is_dir() else []
        return {"kind": "scan", "path": path, "summary": summary["points"], "manifest": manifest, "plots": plots,
                "reports": sorted((path / "runs").glob("*.json")) if (path / "runs").is_dir() else []}
    if not path.exists():
        raise InputError(f"{path} does not exist")
    report = read_json(path, "the report")
    if not is_report(report):
        raise InputError(f"{path} is not a lanes run report (no events_per_s and wall_s)")
    return {"kind": "run", "path": path, "report": report}


def worker_reports(report):
    return [w["report"] for w in report.get("workers", []) if isinstance(w.get("report"), dict)]


def modules(report):
    """[{label, plugin, kind, concurrency, calls, total_s, stall_s?}], a multi-process job's summed over workers."""
    parts = worker_reports(report) if "workers" in report else [report]
    merged = {}
    for part in parts:
        rows = list(part.get("modules", [])) + [{"label": "(source)", "calls": None, "total_s": part.get("source_s", 0.0),
                                                 **({"stall_s": part["source_stall_s"]} if "source_stall_s" in part
                                                    else {})}]
        for module in rows:
            entry = merged.setdefault(module["label"], {key: module.get(key, "") for key in
                                                        ("label", "plugin", "kind", "concurrency")}
                                      | {"calls": 0, "total_s": 0.0})
            entry["calls"] = None if module.get("calls") is None else entry["calls"] + module["calls"]
            entry["total_s"] += module.get("total_s", 0.0)
            if "stall_s" in module:
                entry["stall_s"] = entry.get("stall_s", 0.0) + module["stall_s"]
    return sorted(merged.values(), key=lambda m: -m["total_s"])


def thread_time(report):
    """{category: seconds} of the thread-time breakdown (summed over workers), or {} when the report has none."""
    parts = worker_reports(report) if "workers" in report else [report]
    total = {}
    for part in parts:
        breakdown = part.get("thread_time", {})
        for name, value in (breakdown.items() if isinstance(breakdown, dict) else []):
            if name != "total_s" and isinstance(value, (int, float)) and not isinstance(value, bool):
                name = name.removesuffix("_s")  # modules_s, source_s, ...: the table says the unit
                total[name] = total.get(name, 0.0) + value
    return total


def figures(report):
    """The headline figures of a run report: {name: value or None}."""
    workers = worker_reports(report)
    memory = report.get("memory", {}) if isinstance(report.get("memory"), dict) else {}
    cpu = (sum(w["cpu_user_s"] + w["cpu_sys_s"] for w in workers) if workers
           else report.get("cpu_user_s", 0.0) + report.get("cpu_sys_s", 0.0))
    threads = sum(w.get("threads", 0) for w in workers) if workers else report.get("threads")
    wall = report.get("wall_s")
    efficiency = report.get("cpu_efficiency")
    if efficiency is None and threads and wall:
        efficiency = cpu / (threads * wall)
    return {"events": report.get("events"), "events_per_s": report.get("events_per_s"), "wall_s": wall,
            "cpu_s": cpu, "cpu_efficiency": efficiency, "threads": threads,
            "processes": report.get("processes"),
            "peak_rss_bytes": report.get("peak_rss_bytes", memory.get("total_rss_bytes")),
            "total_pss_bytes": memory.get("peak_total_pss_bytes") or memory.get("total_pss_bytes")}
