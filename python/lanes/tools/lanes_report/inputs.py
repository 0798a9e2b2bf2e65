"""What the report and the comparison read: a run report (single-process, multi-process or MPI, all with the same
keys for the job's figures) or a scan directory.

Only the JSON that lanes writes is read (reports, a scan's manifest.json and summary.json).
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
    """{"kind": "run", "report": {...}, "path": P} or {"kind": "scan", "manifest", "summary", "path"}."""
    path = Path(path)
    if path.is_dir():
        if not (path / "summary.json").is_file():
            raise InputError(f"{path} is not a scan directory (it has no summary.json: run `lanes scan -o {path}`)")
        summary = read_json(path / "summary.json", "the scan summary")
        if not isinstance(summary, dict) or not isinstance(summary.get("points"), list):
            raise InputError(f"{path / 'summary.json'} is not a scan summary (no points)")
        manifest = read_json(path / "manifest.json", "the scan manifest") if (path / "manifest.json").is_file() else {}
        return {"kind": "scan", "path": path, "summary": summary["points"], "manifest": manifest}
    if not path.exists():
        raise InputError(f"{path} does not exist")
    report = read_json(path, "the report")
    if not is_report(report):
        raise InputError(f"{path} is not a lanes run report (no events_per_s and wall_s)")
    if "workers" in report and "modules" not in report:
        raise InputError(f"{path} is a multi-process or MPI report of an older lanes, without its workers' figures "
                         "merged (no modules): run the job again to report it")
    return {"kind": "run", "path": path, "report": report}


def worker_reports(report):
    return [w["report"] for w in report.get("workers", []) if isinstance(w.get("report"), dict)]


def modules(report):
    """[{label, plugin, kind, concurrency, calls, total_s, stall_s?}] and the source's row, longest first: the
    report's own (a multi-process or MPI job's parent merged its parts' under the same keys)."""
    rows = [{key: module.get(key, "") for key in ("label", "plugin", "kind", "concurrency")}
            | {"calls": module.get("calls", 0), "total_s": module.get("total_s", 0.0)}
            | ({"stall_s": module["stall_s"]} if "stall_s" in module else {})
            for module in report.get("modules", [])]
    rows.append({"label": "(source)", "plugin": "", "kind": "", "concurrency": "", "calls": None,
                 "total_s": report.get("source_s", 0.0)})
    return sorted(rows, key=lambda m: -m["total_s"])


def figures(report):
    """The headline figures of a run report: {name: value or None}."""
    memory = report.get("memory", {}) if isinstance(report.get("memory"), dict) else {}
    monitor = report.get("monitor", {}) if isinstance(report.get("monitor"), dict) else {}
    cpu = report.get("cpu_user_s", 0.0) + report.get("cpu_sys_s", 0.0)
    threads, wall = report.get("threads"), report.get("wall_s")
    efficiency = report.get("cpu_efficiency")
    if efficiency is None and threads and wall:
        efficiency = cpu / (threads * wall)
    return {"events": report.get("events"), "events_per_s": report.get("events_per_s"), "wall_s": wall,
            "cpu_s": cpu, "cpu_efficiency": efficiency, "threads": threads,
            "processes": report.get("processes"),
            "peak_rss_bytes": None if "model" in report else report.get("peak_rss_bytes", memory.get("total_rss_bytes")),
            "total_pss_bytes": memory.get("peak_total_pss_bytes") or memory.get("total_pss_bytes"),
            "stall_s": report.get("stall_s"),
            "monitor_ms": None if monitor.get("estimated_s") is None else 1e3 * monitor["estimated_s"]}
