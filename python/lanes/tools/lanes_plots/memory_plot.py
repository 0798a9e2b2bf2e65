#!/usr/bin/env python3
"""Memory over time of a job: the RSS that `lanes run` sampled while it ran (the report's `memory` key), with the
event-time percentiles of its `event_times` key in the title.

    .venv/bin/python -m lanes.tools.lanes_plots.memory_plot report.json memory.png
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from .command import plot_command, save  # noqa: E402


def memory_plot(report_path, png_path):
    """Draws the RSS samples of the report at `report_path` as a PNG at `png_path` (a multi-process job's: a line
    per worker, on the job's clock); returns the number of samples.

    Raises ValueError if the report has no memory samples (a report of another version)."""
    with open(report_path) as f:
        report = json.load(f)
    memory = report.get("memory") or {}
    lines = [(w["part"], w["samples"]) for w in memory.get("workers", []) if w.get("samples")]
    if not lines and memory.get("samples"):
        lines = [(None, memory["samples"])]
    if not lines:
        raise ValueError(f"{report_path}: no memory samples in the report")
    figure, axes = plt.subplots(figsize=(8, 4))
    most = 0
    for label, samples in lines:
        mib = [rss / 2**20 for _, rss in samples]
        axes.plot([s for s, _ in samples], mib, drawstyle="steps-post", label=label)
        most = max(most, *mib)
    if lines[0][0]:
        axes.legend(fontsize=8)
    axes.set_xlabel("time since the job started (s)")
    axes.set_ylabel("RSS (MiB)")
    axes.set_ylim(0, 1.1 * most)
    title = f"memory over time: {report.get('events', 0)} events, {report.get('threads', '?')} threads"
    times = report.get("event_times") or {}
    if times.get("events"):
        title += (f"\nevent time median {1e3 * times['median_s']:.1f} ms, 90% {1e3 * times['p90_s']:.1f} ms, "
                  f"99% {1e3 * times['p99_s']:.1f} ms, max {1e3 * times['max_s']:.1f} ms")
    axes.set_title(title, fontsize=10)
    save(figure, png_path)
    return sum(len(samples) for _, samples in lines)


def main(argv=None):
    return plot_command(memory_plot, __doc__, "report", "the report JSON of `lanes run --report`", "samples", argv)


if __name__ == "__main__":
    sys.exit(main())
