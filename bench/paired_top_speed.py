#!/usr/bin/env python3
"""Two builds' top speed in paired rounds: what a change to the scheduler's hot path costs, with the monitor off and on.

    .venv/bin/python bench/paired_top_speed.py BEFORE AFTER [--rounds 5] [--events 2000000]

BEFORE and AFTER are bench_top_speed binaries (say main's build/bin/bench_top_speed and a branch's). Each round runs
one round of each (an empty source, no waiters, a dummy output, at bench::scalingPoints(): 1 and 2 threads, then the
machine's threads with 2x and 4x lanes), alternating which goes first, so that a slow spell of the machine hits both.
Prints, per point and monitor setting, each build's events/s (median [min-max] over the rounds) and AFTER's median
over BEFORE's; the CPU model and the load before and after. Figures are printed, never asserted.
"""

import argparse
import json
import statistics
import subprocess
from pathlib import Path

import read_speed


def one_round(binary, events):
    """{(threads, lanes, monitor): events/s} of one round of `binary`."""
    out = subprocess.run([str(binary), str(events), "1"], capture_output=True, text=True, check=True).stdout
    rates = {}
    for point in json.loads(out[out.index("{"):])["points"]:
        for monitor, spread in point["events_per_s"].items():
            rates[point["threads"], point["lanes"], monitor] = spread["median"]
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (default 5)")
    parser.add_argument("--events", type=int, default=2_000_000, help="events a job (default 2,000,000)")
    args = parser.parse_args()
    builds = {"before": args.before.resolve(), "after": args.after.resolve()}
    print(f"{read_speed.cpu_model()}, load {read_speed.load()}", flush=True)
    rates = {build: [] for build in builds}
    for round_ in range(args.rounds):
        for build in (builds if round_ % 2 == 0 else reversed(list(builds))):
            rates[build].append(one_round(builds[build], args.events))
    for key in rates["before"][0]:
        threads, lanes, monitor = key
        cells, medians = [], {}
        for build in builds:
            values = [round_[key] for round_ in rates[build]]
            medians[build] = statistics.median(values)
            cells.append(f"{build} {medians[build]:,.0f} [{min(values):,.0f}-{max(values):,.0f}]")
        print(f"-t {threads} -l {lanes}, monitor {monitor}: " + "; ".join(cells) +
              f"; after/before {medians['after'] / medians['before']:.3f}", flush=True)
    print(f"load {read_speed.load()}")


if __name__ == "__main__":
    main()
