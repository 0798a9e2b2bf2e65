#!/usr/bin/env python3
"""The stall graph of a job, as in the CMS study of parallel output: one row per lane over time, each stretch
coloured by what the lane did: running a module call (or the source, or an output), waiting for a serialised
(`one`/`limited`) module's queue, waiting for external work, or idle (no event: waiting for the source).

It reads the Chrome trace of `lanes run --trace FILE`: calls are slices with args.lane; waits are slices whose
category is "wait:queue", "wait:external" or "wait:idle". Where a lane has both, a call is drawn over a wait.

    .venv/bin/python -m lanes.tools.lanes_plots.stall_graph trace.json stalls.png
"""

import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from .command import plot_command, save  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

# State, colour, drawing order (later is drawn over earlier).
STATES = [
    ("idle", "#d9d9d9"),
    ("waiting for external work", "#9e7cc1"),
    ("waiting for a serialised module", "#e45756"),
    ("running", "#4c9f70"),
]
CATEGORY_STATE = {
    "wait:idle": "idle",
    "wait:external": "waiting for external work",
    "wait:queue": "waiting for a serialised module",
}


def lane_intervals(trace):
    """{lane: {state: [(start_s, duration_s), ...]}} from a trace's slices; times from the first slice.

    Every lane has one: one that never got an event was idle from the start to the moment it found no more."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    slices = [e for e in events if e.get("ph") == "X" and "lane" in e.get("args", {})]
    if not slices:
        return {}
    origin = min(e["ts"] for e in slices)
    lanes = defaultdict(lambda: defaultdict(list))
    for e in slices:
        state = CATEGORY_STATE.get(e.get("cat", ""), "running")
        lanes[int(e["args"]["lane"])][state].append(((e["ts"] - origin) / 1e6, e.get("dur", 0) / 1e6))
    return lanes


def stall_graph(trace_path, png_path):
    """Draws the stall graph of the trace at `trace_path` as a PNG at `png_path`; returns the number of lanes.

    Raises ValueError if the trace has no per-lane slice (no call was recorded)."""
    with open(trace_path) as f:
        lanes = lane_intervals(json.load(f))
    if not lanes:
        raise ValueError(f"{trace_path}: no call with a lane in the trace")
    rows = sorted(lanes)
    figure, axes = plt.subplots(figsize=(12, 1.5 + 0.35 * len(rows)))
    for row, lane in enumerate(rows):
        for state, colour in STATES:
            intervals = lanes[lane].get(state)
            if intervals:
                axes.broken_barh(intervals, (row - 0.4, 0.8), facecolors=colour, linewidth=0)
    axes.set_yticks(range(len(rows)), [f"lane {lane}" for lane in rows])
    axes.set_ylim(-0.6, len(rows) - 0.4)
    axes.invert_yaxis()
    axes.set_xlabel("time since the first call (s)")
    axes.set_title("stall graph: what each lane does over time")
    axes.legend(handles=[Patch(color=colour, label=state) for state, colour in reversed(STATES)],
                loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    save(figure, png_path)
    return len(rows)


def main(argv=None):
    return plot_command(stall_graph, __doc__, "trace", "the trace JSON of `lanes run --trace`", "lanes", argv)


if __name__ == "__main__":
    sys.exit(main())
