"""What job.run() returns: the run report as attributes and pandas DataFrames, the provenance, the output files,
the Python analyzers' results; shown in a notebook as the HTML report."""

import math
from pathlib import Path

import pandas as pd

from . import _pages

MODULE_COLUMNS = ("label", "plugin", "kind", "concurrency", "calls", "events", "total_s", "stall_s", "external_s")


class Result:
    """The result of a job: every key of its run report is an attribute (result.events_per_s, result.wall_s,
    result.cpu_efficiency, result.thread_time, ...: docs/reports.md), and

    - modules, paths, event_times, timeline: pandas DataFrames (below);
    - provenance: what ran where (command, host, CPU, versions, commit);
    - outputs: {label: path} of the files the outputs wrote;
    - analyzers: {label: results} of its Python analyzers (their `results` dicts, filled);
    - report: the report itself (a dict), summary: the summary `lanes run` printed."""

    def __init__(self, report, summary="", analyzers=None, report_path=None, trace_path=None):
        self.report = report
        self.summary = summary
        self.analyzers = analyzers or {}
        self.report_path = Path(report_path) if report_path else None
        self.trace_path = Path(trace_path) if trace_path else None

    def __getattr__(self, name):
        report = self.__dict__.get("report", {})
        if name in report:
            return report[name]
        raise AttributeError(f"a lanes result has no {name!r} (nor has its report)")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.report))

    @property
    def modules(self):
        """A row per module: label, plugin, kind, concurrency, calls, events, total_s, stall_s, external_s, and
        the figures of its own (a Python analyzer's interpreter_wait_s, an output's file and bytes...)."""
        rows = []
        for module in self.report.get("modules", []):
            row = {k: v for k, v in module.items() if k != "details"}
            details = module.get("details")
            if isinstance(details, dict):
                row.update({k: v for k, v in details.items() if not isinstance(v, (dict, list))})
            rows.append(row)
        first = [c for c in MODULE_COLUMNS if any(c in row for row in rows)]
        return pd.DataFrame(rows, columns=first + sorted({c for row in rows for c in row} - set(first)))

    @property
    def paths(self):
        """A row per path: name, visited, accepted, rejected, failed."""
        paths = self.report.get("path_report", {}).get("paths", [])
        return pd.DataFrame([{k: v for k, v in p.items() if k != "modules"} for p in paths],
                            columns=["name", "visited", "accepted", "rejected", "failed"])

    @property
    def event_times(self):
        """The distribution of the events' wall times: a row per bucket of the report's histogram (low_s, high_s,
        events; 64 buckets to an octave)."""
        histogram = self.report.get("event_times", {}).get("histogram", {})
        per_octave = histogram.get("buckets_per_octave", 64)
        rows = [{"low_s": math.pow(2, b / per_octave), "high_s": math.pow(2, (b + 1) / per_octave), "events": n}
                for b, n in histogram.get("counts", [])]
        return pd.DataFrame(rows, columns=["low_s", "high_s", "events"])

    @property
    def timeline(self):
        """Memory and concurrency over time: t_s, rss_bytes (the memory samples), busy_threads and
        events_in_flight (the activity samples), one row per sample time."""
        memory = pd.DataFrame(self.report.get("memory", {}).get("samples", []), columns=["t_s", "rss_bytes"])
        activity = pd.DataFrame(self.report.get("activity", {}).get("samples", []),
                                columns=["t_s", "busy_threads", "events_in_flight"])
        return memory.merge(activity, on="t_s", how="outer").sort_values("t_s", ignore_index=True)

    @property
    def outputs(self):
        """{label: Path} of the files the job's outputs wrote (committed)."""
        return {m["label"]: Path(m["details"]["file"]) for m in self.report.get("modules", [])
                if isinstance(m.get("details"), dict) and m["details"].get("committed") and "file" in m["details"]}

    def __repr__(self):
        state = f"failed: {self.error}" if self.report.get("failed") else "ok"
        return (f"<lanes result: {self.report.get('events')} events in {self.report.get('wall_s', 0):.3f} s = "
                f"{self.report.get('events_per_s', 0):.1f} events/s [{self.report.get('threads')} threads, "
                f"{self.report.get('lanes')} lanes], {state}>")

    def page(self, title="lanes run"):
        """The run's HTML report (as `lanes report` writes it), as text."""
        path = self.report_path or Path("report.json")
        return _pages.run_page(self.report, path, title, self.trace_path)

    def _repr_html_(self):
        return _pages.frame(self.page())
