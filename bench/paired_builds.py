#!/usr/bin/env python3
"""Two lanes builds reading the same inputs, in paired rounds: what a change to the read path did.

    .venv/bin/python bench/paired_builds.py BEFORE AFTER [--rounds 5] [--inputs objects,flat,files] [--threads 1,2]
                                            [--options handles=shared] [--out bench-results]

BEFORE and AFTER are lanes binaries (say main's `build/bin/lanes` copied aside, beside its
liblanes_root_rdict.pcm, and a branch's). The inputs are bench/read_speed.py's (made on first use in --out). Each
round runs, for each input and thread count, `lanes run --source root:file=INPUT,OPTIONS -n 0 -t N --output dummy`
with one build and then the other, alternating which goes first, so that a slow spell of the machine hits both.
Prints, per job, each build's events/s from its run report (median [min-max]), AFTER's median over BEFORE's, and
each build's rate at N threads over its rate at 1 (with --threads including 1); the CPU model and the load before
and after. Figures are printed, never asserted: this is a measurement, not a test.
"""

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

import read_speed


def events_per_s(binary, source, threads, scratch):
    report = Path(scratch) / "report.json"
    read_speed.run_process(read_speed.lanes_command(source, threads, report, binary=binary))
    return json.loads(report.read_text())["events_per_s"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (default 5)")
    parser.add_argument("--inputs", default="objects,flat",
                        help=f"comma-separated, of {', '.join(read_speed.INPUTS)} (default objects,flat)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--options", default="", help="source options added to every job, e.g. handles=shared")
    parser.add_argument("--out", type=Path, default=read_speed.REPO / "bench-results")
    args = parser.parse_args()
    names = args.inputs.split(",")
    unknown = sorted(set(names) - set(read_speed.INPUTS))
    if unknown:
        parser.error(f"unknown input(s) {', '.join(unknown)}: choose from {', '.join(read_speed.INPUTS)}")
    threads_list = [int(t) for t in args.threads.split(",")]
    builds = {"before": args.before.resolve(), "after": args.after.resolve()}
    args.out.mkdir(parents=True, exist_ok=True)
    inputs = read_speed.make_inputs(args.out, names)
    print(f"{read_speed.cpu_model(builds['after'])}, {len(os.sched_getaffinity(0))} cores, load {read_speed.load()}",
          flush=True)
    jobs = [(name, threads, ",".join(filter(None, [inputs[name]["source"], args.options])))
            for name in names for threads in threads_list]
    rates = {(job, build): [] for job in jobs for build in builds}
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(args.rounds):
            for job in jobs:
                order = list(builds) if round_ % 2 == 0 else list(reversed(builds))
                for build in order:
                    rates[job, build].append(events_per_s(builds[build], job[2], job[1], scratch))
    medians = {key: statistics.median(values) for key, values in rates.items()}
    for job in jobs:
        name, threads, source = job
        cells = []
        for build in builds:
            values = rates[job, build]
            scaling = ""
            if 1 in threads_list and threads != 1:
                scaling = f", {medians[job, build] / medians[(name, 1, source), build]:.2f}x its 1 thread"
            cells.append(f"{build} {medians[job, build]:,.0f} [{min(values):,.0f}-{max(values):,.0f}]{scaling}")
        ratio = medians[job, "after"] / medians[job, "before"]
        print(f"{name} {args.options or 'defaults'} -t {threads}: " + "; ".join(cells) + f"; after/before {ratio:.2f}",
              flush=True)
    print(f"load {read_speed.load()}")


if __name__ == "__main__":
    main()
