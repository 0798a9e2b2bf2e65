#!/usr/bin/env python3
"""Top speed against the Fermilab framework: the framework's own cost per event, as a user runs it.

    .venv/bin/python bench/top_speed.py [--anchor PATH_TO_threaded_io_test] [--rounds 5] [--threads 1,2]
                                        [--events 5000000] [--quick]

Each round runs `lanes run --source empty:events=EVENTS --output dummy -t T` (with the monitor that `lanes run`
attaches by default, and as many lanes as threads, its default; its event count checked) and then the anchor's
`threaded_io_test -s EmptySource -t T -l T -n EVENTS -o DummyOutputer`, alternating which goes first, at each
thread count: events without products through an output that writes nothing, so what is timed is the
framework's hand-over of events, its scheduling and its monitor. Each program's own events/s (lanes' from its
run report, the anchor's from its summary, whose event count is checked) and whole-process wall times:
medians with min and max over the rounds, and lanes' median rate over the anchor's (above 1: lanes is faster).

Without --anchor only lanes runs. --quick runs one round of 200,000 events: a check that every figure comes out,
not a figure. Prints the CPU model, the core count and the load average before and after. Figures are printed,
never asserted: this is a measurement, not a test. (bench_top_speed measures the same job in-process, with the
monitor off, on and sampled: where the cost of each part of the per-event path shows.)
"""

import argparse
import os
import tempfile
from pathlib import Path

import read_speed


def rate(spread):
    return f"{spread['median'] / 1e6:6.2f} M/s [{spread['min'] / 1e6:.2f}-{spread['max'] / 1e6:.2f}]"


def paired_rounds(measures, rounds):
    """{name: [runs]} of `rounds` rounds of `measures` (name -> callable), alternating which goes first."""
    runs = {name: [] for name in measures}
    for round_ in range(rounds):
        order = list(measures) if round_ % 2 == 0 else list(reversed(list(measures)))
        for name in order:
            runs[name].append(measures[name]())
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor", type=Path, help="the Fermilab framework's threaded_io_test")
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (default 5)")
    parser.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    parser.add_argument("--events", type=int, default=5_000_000, help="events a job (default 5,000,000)")
    parser.add_argument("--quick", action="store_true", help="one round of 200,000 events: a check, not a figure")
    args = parser.parse_args()
    if args.anchor and not os.access(args.anchor, os.X_OK):
        parser.error(f"--anchor {args.anchor}: no such executable")
    if args.rounds < 1 or args.events < 1:
        parser.error("--rounds and --events take a positive count")
    try:
        threads_list = [int(t) for t in args.threads.split(",")]
    except ValueError:
        parser.error(f"--threads takes counts separated by commas, not {args.threads}")
    if min(threads_list) < 1:
        parser.error("--threads takes positive counts")
    rounds, events = (1, 200_000) if args.quick else (args.rounds, args.events)
    print(f"{read_speed.cpu_model()}, {os.cpu_count()} cores, load {read_speed.load()}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        for threads in threads_list:
            # `empty:events=N` read to its end (-n 0): the job of `lanes run --source empty -n N`, its count checked.
            measures = {"lanes": lambda: read_speed.lanes_run(f"empty:events={events}", threads, scratch,
                                                              events=events)}
            if args.anchor:
                measures["anchor"] = lambda: read_speed.anchor_run(args.anchor, None, threads, source="EmptySource",
                                                                   events=events)
            runs = paired_rounds(measures, rounds)
            rates = {name: read_speed.spread(runs[name], "events_per_s") for name in runs}
            walls = {name: read_speed.spread(runs[name], "wall_s") for name in runs}
            line = (f"{threads} thread(s), {events:,} events: lanes {rate(rates['lanes'])}, whole process "
                    f"{read_speed.seconds(walls['lanes']).strip()}")
            if args.anchor:
                line += (f"; anchor {rate(rates['anchor'])}, whole process {read_speed.seconds(walls['anchor']).strip()}"
                         f"; lanes / anchor {rates['lanes']['median'] / rates['anchor']['median']:.2f}")
            print(line, flush=True)
    if not args.anchor:
        print("anchor: not measured (no --anchor PATH_TO_threaded_io_test)")
    print(f"load {read_speed.load()}")


if __name__ == "__main__":
    main()
