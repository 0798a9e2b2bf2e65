#!/usr/bin/env python3
"""What reading a file costs two lanes binaries, e.g. main's and one with the reading note (a per-thread note of
what is read, for the report of a fatal signal) and the checks of baskets before ROOT reads them (issue 24):

    .venv/bin/python bench/read_checks.py BASELINE CANDIDATE [--events 100] [--rounds 5] [--no-callgrind]

For each input (flat NanoAOD, NanoAOD with std::vector branches, an RNTuple), the job `lanes run -t 1 --source
...,file=F x k --output dummy` (every product read, nothing else done):

1. Instructions per event, counted by valgrind's callgrind (repeatable even on a loaded machine): the difference
   between a job of 2N and one of N events, divided by N, so that start-up and file opening cancel out (with
   2N at most the 200 events of the NanoAOD files: beyond, the second job opens the file again, and what
   opening a file costs is counted per event).
2. Wall-clock events/s in paired rounds, alternating which binary goes first: median, least and most of each,
   and the ratio of the medians. The load (uptime) is printed before and after: quote it with the figures.

Figures are printed, never asserted: this is a measurement, not a test.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data" / "files"

# name, source plugin, file, events in the file, extra source options
INPUTS = [
    ("nanoaod-flat", "root", "nanoAOD_2015_CMS_Open_Data_ttbar.root", 200, ""),
    ("nanoaod-vectors", "root", "nanoAOD_2015_ttbar_vector_branches.root", 200, ",id=EventID"),
    ("muons-rntuple", "rntuple", "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root", 1000, ""),
]


def source(plugin, file, per_file, events, extra):
    copies = -(-events // per_file)  # the file listed as often as the events need
    return f"{plugin}:" + ",".join([f"file={DATA / file}"] * copies) + extra


def job(binary, spec, events):
    return [str(binary), "run", "-t", "1", "-n", str(events), "--source", spec, "--output", "dummy"]


def instructions(command):
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "callgrind.out"
        completed = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
                                   capture_output=True, text=True)
        if completed.returncode != 0:
            sys.exit(f"failed: {' '.join(command)}\n{completed.stderr[-2000:]}")
        summary = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
        return int(summary.group(1))


def per_event(binary, spec, events):
    return (instructions(job(binary, spec, 2 * events)) - instructions(job(binary, spec, events))) / events


def events_per_second(binary, spec, events):
    start = time.perf_counter()
    completed = subprocess.run(job(binary, spec, events), capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if completed.returncode != 0:
        sys.exit(f"failed: {binary}\n{completed.stderr[-2000:]}")
    return events / seconds


def spread(values):
    return f"median {statistics.median(values):9.0f}  least {min(values):9.0f}  most {max(values):9.0f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path)
    parser.add_argument("candidate", type=Path)
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-callgrind", action="store_true", help="wall-clock rounds only")
    arguments = parser.parse_args()
    binaries = {"baseline": arguments.baseline, "candidate": arguments.candidate}
    print("load before:", os.popen("uptime").read().strip())
    print("cpu:", next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?"))
    for name, plugin, file, per_file, extra in INPUTS:
        spec = source(plugin, file, per_file, 2 * arguments.events, extra)
        print(f"\n{name}: {arguments.events} events, 1 thread, every product read, dummy output")
        if not arguments.no_callgrind:
            counted = {which: per_event(binary, spec, arguments.events) for which, binary in binaries.items()}
            difference = counted["candidate"] - counted["baseline"]
            print(f"  instructions/event  baseline {counted['baseline']:12.0f}  candidate {counted['candidate']:12.0f}"
                  f"  difference {difference:+10.0f} ({difference / counted['baseline']:+.2%})")
        rates = {which: [] for which in binaries}
        for round in range(arguments.rounds):
            order = list(binaries) if round % 2 == 0 else list(reversed(binaries))
            for which in order:
                rates[which].append(events_per_second(binaries[which], spec, arguments.events))
        for which in binaries:
            print(f"  events/s {which:9}  {spread(rates[which])}")
        ratio = statistics.median(rates["candidate"]) / statistics.median(rates["baseline"])
        print(f"  candidate / baseline (medians): {ratio:.3f}")
    print("\nload after:", os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
