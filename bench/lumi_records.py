#!/usr/bin/env python3
"""What the run and lumi records cost the blob formats: two lanes builds writing and reading the same jobs.

    .venv/bin/python bench/lumi_records.py BEFORE AFTER [--rounds 5] [--events 20000] [--threads 2]
                                           [--per-lumi 100] [--formats root-events,pds,hdf5]

BEFORE and AFTER are lanes binaries (one without records, say the branch's base, and one with them). For each
format, each round writes --events NanoAOD events (the test file cached in memory, repeat=200, in lumis of
--per-lumi events) with one build and then the other, alternating which goes first so that a slow spell of the
machine hits both; then each build reads its own file back into a dummy output (AFTER's source reads the ids of
every event to find the lumis, and the records). Prints each build's events/s from its run report, median [min-max],
AFTER's median over BEFORE's, the CPU model and the load before and after. Figures are printed, never asserted:
this is a measurement, not a test.
"""

import argparse
import json
import statistics
import tempfile
from pathlib import Path

import read_speed

NANOAOD = read_speed.REPO / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
EXTENSION = {"root-events": "root", "pds": "pds", "hdf5": "h5"}


def events_per_s(command, report):
    read_speed.run_process([*command, "--report", report])
    return json.loads(Path(report).read_text())["events_per_s"]


def write(binary, plugin, path, args, scratch):
    source = f"root:file={NANOAOD},repeat=200,events-per-lumi={args.per_lumi}"
    return events_per_s([binary, "run", "-n", args.events, "-t", args.threads, "--source", source,
                         "--output", f"{plugin}:file={path}"], Path(scratch) / "report.json")


def read(binary, plugin, path, args, scratch):
    return events_per_s([binary, "run", "-n", 0, "-t", args.threads, "--source", f"{plugin}:file={path}",
                         "--output", "dummy"], Path(scratch) / "report.json")


def spread(values):
    return f"{statistics.median(values):9.0f} [{min(values):.0f}-{max(values):.0f}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--per-lumi", type=int, default=100)
    parser.add_argument("--formats", default="root-events,pds,hdf5")
    args = parser.parse_args()
    builds = {"before": args.before.resolve(), "after": args.after.resolve()}
    formats = args.formats.split(",")
    print(f"{read_speed.cpu_model()}, load {read_speed.load()}; {args.events} NanoAOD events in lumis of "
          f"{args.per_lumi}, -t {args.threads}, {args.rounds} paired rounds", flush=True)
    rates = {(plugin, step, build): [] for plugin in formats for step in ("write", "read") for build in builds}
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(args.rounds):
            order = list(builds) if round_ % 2 == 0 else list(reversed(builds))
            for plugin in formats:
                for step, run in (("write", write), ("read", read)):
                    for build in order:
                        path = Path(scratch) / f"{build}.{EXTENSION[plugin]}"
                        rates[(plugin, step, build)].append(run(builds[build], plugin, path, args, scratch))
    print(f"{'format':12} {'step':6} {'before events/s':>26} {'after events/s':>26}  after/before")
    for plugin in formats:
        for step in ("write", "read"):
            before, after = rates[(plugin, step, "before")], rates[(plugin, step, "after")]
            ratio = statistics.median(after) / statistics.median(before)
            print(f"{plugin:12} {step:6} {spread(before):>26} {spread(after):>26}  {ratio:.3f}")
    print(f"load after: {read_speed.load()}")


if __name__ == "__main__":
    main()
