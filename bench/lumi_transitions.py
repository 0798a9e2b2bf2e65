#!/usr/bin/env python3
"""What a lumi transition costs the framework, and how far concurrent lumis recover a boundary (issue 33's targets).

    .venv/bin/python bench/lumi_transitions.py [--rounds 5] [--events 2000000]

Two measurements, each in paired rounds (the configurations alternated, A B C A B C ...), medians [min-max]:

1. Top speed: the `empty` source into the `dummy` output, the monitor attached as `lanes run` attaches it, at 1
   and 2 threads, with one lumi for the whole job (no boundaries), with lumis of 100 events and with lumis of one
   event (a begin and an end transition per event). Prints each one's events/s over the job without boundaries
   (target: >= 0.5 at both sizes), and the framework's cost of one lumi transition at 1 thread: (1/rate with
   lumis of one event - 1/rate without) per lumi (target: <= 2 us).
2. Concurrent lumis at scale: 64 lanes of sleep work (5 ms an event) with a per-lumi summary whose end-lumi costs
   two events' time, lumis of 640 events (10 x the lanes), at --concurrent-lumis 1 and 2, against the same job
   without boundaries (target: 2 lumis >= 0.9 of it; 1 lumi shows the serialisation CMS found).

Prints the CPU model and the load before and after. Figures are printed, never asserted.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import read_speed

REPO = Path(__file__).resolve().parents[1]
LANES = Path(os.environ.get("LANES_BINARY", REPO / "build" / "bin" / "lanes"))


def rate(directory, args):
    report = Path(directory) / "report.json"
    completed = subprocess.run([str(LANES), "run", *map(str, args), "--report", str(report)], capture_output=True,
                               text=True)
    if completed.returncode != 0:
        sys.exit(f"lumi_transitions.py: lanes run {' '.join(map(str, args))} failed:\n{completed.stderr}")
    return json.loads(report.read_text())["events_per_s"]


def paired(directory, configs, rounds):
    """{name: [events/s per round]}, the configurations alternated within each round."""
    rates = {name: [] for name in configs}
    for _ in range(rounds):
        for name, args in configs.items():
            rates[name].append(rate(directory, args))
    return rates


def text(values):
    return f"{statistics.median(values):,.0f} [{min(values):,.0f}-{max(values):,.0f}]"


def top_speed(directory, args):
    print("top speed: empty -> dummy, events/s, medians [min-max]", flush=True)
    for threads in (1, 2):
        base = ["-t", threads, "-n", args.events, "--output", "dummy"]
        configs = {"no boundaries": base + ["--source", "empty"],
                   "lumis of 100": base + ["--source", "empty:events-per-lumi=100"],
                   "lumis of 1": base + ["--source", "empty:events-per-lumi=1"]}
        rates = paired(directory, configs, args.rounds)
        none = statistics.median(rates["no boundaries"])
        for name, values in rates.items():
            print(f"  {threads} thread{'s' if threads > 1 else ''}, {name}: {text(values)} events/s, "
                  f"{statistics.median(values) / none:.2f} of no boundaries", flush=True)
        if threads == 1:
            per_lumi = 1 / statistics.median(rates["lumis of 1"]) - 1 / none
            print(f"  framework cost of one lumi (a begin and an end transition) at 1 thread: {1e6 * per_lumi:.2f} us",
                  flush=True)


def concurrent_lumis(directory, args):
    print("64 lanes of sleep work (5 ms an event), lumis of 640 events, end-lumi 10 ms; events/s", flush=True)
    base = ["-t", 64, "-l", 64, "-n", args.sleep_events, "--output", "dummy",
            "--module", "analyzer:label=event,time=0.005,work=sleep",
            "--module", "lumi-work:label=summary,end-lumi=0.010,work=sleep"]
    configs = {"no boundaries": base + ["--source", "empty"],
               "--concurrent-lumis 1": base + ["--source", "empty:events-per-lumi=640", "--concurrent-lumis", 1],
               "--concurrent-lumis 2": base + ["--source", "empty:events-per-lumi=640", "--concurrent-lumis", 2]}
    rates = paired(directory, configs, args.rounds)
    none = statistics.median(rates["no boundaries"])
    for name, values in rates.items():
        print(f"  {name}: {text(values)} events/s, {statistics.median(values) / none:.3f} of no boundaries", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=2_000_000, help="events of each top-speed job")
    parser.add_argument("--sleep-events", type=int, default=25_600, help="events of each 64-lane job (40 lumis)")
    parser.add_argument("--only", choices=["top-speed", "concurrent-lumis"])
    args = parser.parse_args()
    print(f"cpu: {read_speed.cpu_model()}, {os.cpu_count()} cores; load before: {read_speed.load()}")
    with tempfile.TemporaryDirectory() as directory:
        if args.only in (None, "top-speed"):
            top_speed(directory, args)
        if args.only in (None, "concurrent-lumis"):
            concurrent_lumis(directory, args)
    print(f"load after: {read_speed.load()}")


if __name__ == "__main__":
    main()
