"""The scan's plots, PNG and SVG, from its summary: one line per value of the axes other than the x axis.

Against threads (when they vary): events/s with min-max bars and the ideal-scaling line, CPU efficiency,
speed-up; against processes (when they vary): the peak total PSS. Otherwise events/s as bars, one per point.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

MIB = 1024 * 1024


def varying(summary):
    names = list(summary[0]["axes"]) if summary else []
    return [n for n in names if len({str(p["axes"][n]) for p in summary}) > 1]


def lines(summary, x_axis, others, metric):
    """{label: [(x, median, min, max)]}, sorted by x, over the points with `metric`."""
    result = {}
    for point in summary:
        if point[metric] is None:
            continue
        label = ", ".join(f"{n}={point['axes'][n]}" for n in others) or None
        figures = point[metric]
        result.setdefault(label, []).append((int(point["axes"][x_axis]), figures["median"], figures["min"],
                                             figures["max"]))
    return {label: sorted(values) for label, values in result.items()}


def save(figure, directory, name):
    figure.tight_layout()
    try:
        for suffix in ("png", "svg"):  # through a temporary name: a failed write leaves no plot that looks whole
            temporary = directory / f"{name}.{suffix}.tmp"
            try:
                figure.savefig(temporary, format=suffix)
            except OSError as error:
                temporary.unlink(missing_ok=True)
                raise OSError(error.errno, error.strerror or str(error), str(temporary)) from error
            temporary.replace(directory / f"{name}.{suffix}")
    finally:
        plt.close(figure)
    return [directory / f"{name}.{suffix}" for suffix in ("png", "svg")]


def against(directory, name, data, x_label, y_label, scale=1.0, ideal=None):
    """One plot of `data` (from lines()); `ideal(x0, y0, xs)` draws each line's ideal, dashed, in its colour."""
    figure, axes = plt.subplots(figsize=(6.4, 4.4))
    for label, values in data.items():
        xs = [v[0] for v in values]
        medians = [v[1] / scale for v in values]
        below = [(v[1] - v[2]) / scale for v in values]
        above = [(v[3] - v[1]) / scale for v in values]
        drawn = axes.errorbar(xs, medians, yerr=[below, above], marker="o", capsize=3, label=label)
        if ideal and len(xs) > 1:
            axes.plot(xs, ideal(xs[0], medians[0], xs), linestyle="--", color=drawn[0].get_color(), alpha=0.5)
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    axes.set_xticks(sorted({v[0] for values in data.values() for v in values}))
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    if any(label for label in data):
        axes.legend(fontsize="small")
    if ideal:
        axes.set_title("dashed: ideal scaling", fontsize="small")
    return save(figure, directory, name)


def speedups(data):
    """Each line's medians (and bars) divided by its median at its fewest threads."""
    return {label: [(x, m / values[0][1], lo / values[0][1], hi / values[0][1]) for x, m, lo, hi in values]
            for label, values in data.items() if values[0][1] > 0}


def bars(directory, summary, names):
    figure, axes = plt.subplots(figsize=(max(6.4, 0.9 * len(summary)), 4.4))
    points = [p for p in summary if p["events_per_s"] is not None]
    labels = ["\n".join(f"{n}={p['axes'][n]}" for n in names) or p["point"] for p in points]
    medians = [p["events_per_s"]["median"] for p in points]
    errors = [[m - p["events_per_s"]["min"] for m, p in zip(medians, points)],
              [p["events_per_s"]["max"] - m for m, p in zip(medians, points)]]
    axes.bar(range(len(points)), medians, yerr=errors, capsize=3)
    axes.set_xticks(range(len(points)), labels, fontsize="small")
    axes.set_ylabel("events/s (median, min-max)")
    axes.grid(axis="y", alpha=0.3)
    return save(figure, directory, "rate")


def plot(summary, directory):
    """Writes the plots that the varying axes call for under `directory`; returns their paths."""
    directory.mkdir(exist_ok=True)
    names = varying(summary)
    written = []
    if "threads" in names:
        others = [n for n in names if n != "threads"]
        rate = lines(summary, "threads", others, "events_per_s")
        written += against(directory, "rate", rate, "threads", "events/s (median, min-max)",
                           ideal=lambda x0, y0, xs: [y0 * x / x0 for x in xs])
        written += against(directory, "cpu_efficiency", lines(summary, "threads", others, "cpu_efficiency"),
                           "threads", "CPU efficiency")
        written += against(directory, "speedup", speedups(rate), "threads", "speed-up over the fewest threads",
                           ideal=lambda x0, y0, xs: [y0 * x / x0 for x in xs])
    else:
        written += bars(directory, summary, names)
    if "processes" in names:
        others = [n for n in names if n != "processes"]
        written += against(directory, "pss", lines(summary, "processes", others, "total_pss_bytes"), "processes",
                           "peak total PSS (MiB)", scale=MIB)
    return written
