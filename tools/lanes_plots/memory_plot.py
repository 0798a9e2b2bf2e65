#!/usr/bin/env python3
"""Memory over time of a job: the RSS that `lanes run` sampled while it ran (the report's `memory` key), with the
event-time percentiles of its `event_times` key in the title.

    .venv/bin/python tools/lanes_plots/memory_plot.py report.json memory.png
"""

import json
import sys

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script too
from lanes_plots.command import plot_command, save  # noqa: E402


def memory_plot(report_path, png_path):
    """Draws the RSS samples of the report at `report_path` as a PNG at `png_path`; returns the number of samples.

    Raises ValueError if the report has no memory samples (a report of another version, or a multi-process job's,
    whose workers each have their own)."""
    with open(report_path) as f:
        report = json.load(f)
    samples = (report.get("memory") or {}).get("samples") or []
    if not samples:
        raise ValueError(f"{report_path}: no memory samples in the report")
    figure, axes = plt.subplots(figsize=(8, 4))
    mib = [rss / 2**20 for _, rss in samples]
    axes.plot([s for s, _ in samples], mib, drawstyle="steps-post")
    axes.set_xlabel("time since the job started (s)")
    axes.set_ylabel("RSS (MiB)")
    axes.set_ylim(0, 1.1 * max(mib))
    title = f"memory over time: {report.get('events', 0)} events, {report.get('threads', '?')} threads"
    times = report.get("event_times") or {}
    if times.get("events"):
        title += (f"\nevent time median {1e3 * times['median_s']:.1f} ms, 90% {1e3 * times['p90_s']:.1f} ms, "
                  f"99% {1e3 * times['p99_s']:.1f} ms, max {1e3 * times['max_s']:.1f} ms")
    axes.set_title(title, fontsize=10)
    save(figure, png_path)
    return len(samples)


def main(argv=None):
    return plot_command(memory_plot, __doc__, "report", "the report JSON of `lanes run --report`", "samples", argv)


if __name__ == "__main__":
    sys.exit(main())
