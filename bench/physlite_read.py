#!/usr/bin/env python3
"""ATLAS PHYSLITE read rate: lanes' `rntuple` source against uproot, reading the same fields, in paired rounds.

    .venv/bin/python bench/physlite_read.py [--rounds 5] [--threads 1,2] [--copies 10] [--out bench-results]

The input is the corpus's PHYSLITE RNTuple (data/files/rntuple/uproot-physlite-rntuple_v1-0-0-0.root, `EventData`,
100 events) read --copies times over, 1,000 events by default: lanes reads it as a file list that names it that many
times (rntuple:files=LIST,ntuple=EventData,fields=*AuxDyn:*), uproot opens it that many times; both read every one
of its 754 AuxDyn fields (std::vectors of numbers, nested ones, strings, ElementLinks: lanes reads 82 of them
emulated), lanes into the `dummy` output, uproot into awkward arrays (HasFields.arrays, no cache). At N threads
lanes runs -t N, uproot gets thread pools of N for decompression and interpretation (its own way to use threads).
Each round runs lanes, then uproot, at the same thread count (A B A B ...), so that a slow spell of the machine hits
both. Two figures per program: the whole process's wall time (start-up included: loading ROOT, importing uproot),
and the reading's event rate (lanes' from its run report, which counts the job from its first event; uproot's
timed around its reading loop). Medians over the rounds with min and max, and uproot's time over lanes' (above 1:
lanes reads faster).

Prints the CPU model, the core count and the load average before and after; writes every run to
physlite_read.json in --out. Figures are printed, never asserted: this is a measurement, not a test.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import read_speed

REPO = Path(__file__).resolve().parents[1]
LANES = Path(os.environ.get("LANES_BINARY", REPO / "build" / "bin" / "lanes"))
PHYSLITE = REPO / "data" / "files" / "rntuple" / "uproot-physlite-rntuple_v1-0-0-0.root"
NTUPLE, FIELDS, EVENTS_PER_COPY = "EventData", "*AuxDyn:*", 100

# The uproot side, run as a process of its own: imports, reads, prints its reading's seconds and events as JSON.
UPROOT_READER = """
import concurrent.futures, json, sys, time
import uproot
path, copies, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pools = {}
if threads > 1:
    pools = {"decompression_executor": concurrent.futures.ThreadPoolExecutor(threads),
             "interpretation_executor": concurrent.futures.ThreadPoolExecutor(threads)}
start, events = time.perf_counter(), 0
for _ in range(copies):
    with uproot.open(path, array_cache=None) as file:
        ntuple = file["EventData"]
        fields = [name for name in ntuple.keys(recursive=False) if "AuxDyn:" in name]
        events += len(ntuple.arrays(fields, array_cache=None, **pools))
print(json.dumps({"seconds": time.perf_counter() - start, "events": events, "fields": len(fields)}))
"""


def run_process(command):
    """Runs `command` to its end: (whole-process wall s, stdout). Exits naming it if it fails."""
    start = time.perf_counter()
    completed = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if completed.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed ({completed.returncode}): {completed.stderr.strip()[-2000:]}")
    return wall, completed.stdout


def lanes_run(files, threads, scratch, events):
    report = Path(scratch) / "report.json"
    wall, _ = run_process([LANES, "run", "-t", threads, "-n", 0, "--source",
                           f"rntuple:files={files},ntuple={NTUPLE},fields={FIELDS}", "--output", "dummy",
                           "--report", report])
    summary = json.loads(report.read_text())
    if summary["events"] != events:
        sys.exit(f"lanes read {summary['events']} events, not {events}")
    return {"wall_s": wall, "events_per_s": summary["events_per_s"]}


def uproot_run(copies, threads, events):
    wall, stdout = run_process([sys.executable, "-c", UPROOT_READER, PHYSLITE, copies, threads])
    read = json.loads(stdout)
    if read["events"] != events:
        sys.exit(f"uproot read {read['events']} events, not {events}")
    return {"wall_s": wall, "events_per_s": events / read["seconds"], "fields": read["fields"]}


def spread(runs, key):
    values = [run[key] for run in runs]
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (default 5)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--copies", type=int, default=10, help="times the file is read (default 10)")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results")
    arguments = parser.parse_args()
    if arguments.rounds < 1 or arguments.copies < 1:
        parser.error("--rounds and --copies take a positive number")
    threads_list = [int(t) for t in arguments.threads.split(",")]
    events = arguments.copies * EVENTS_PER_COPY
    arguments.out.mkdir(parents=True, exist_ok=True)
    results = {"benchmark": "physlite_read", "cpu": read_speed.cpu_model(), "cores": os.cpu_count(),
               "load_before": read_speed.load(),
               "rounds": arguments.rounds, "events": events, "lanes": str(LANES), "rows": []}
    print(f"CPU: {results['cpu']}, {results['cores']} cores; load average before: {results['load_before']}; "
          f"{arguments.rounds} paired rounds of {events} PHYSLITE events; medians [min-max]", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        files = Path(scratch) / "files.txt"
        files.write_text(f"{PHYSLITE}\n" * arguments.copies)
        for threads in threads_list:
            runs = {"lanes": [], "uproot": []}
            for _ in range(arguments.rounds):
                runs["lanes"].append(lanes_run(files, threads, scratch, events))
                runs["uproot"].append(uproot_run(arguments.copies, threads, events))
            row = {"threads": threads, "runs": runs,
                   **{f"{side}_{key}": spread(runs[side], key) for side in runs for key in ("wall_s", "events_per_s")}}
            row["time_ratio"] = row["uproot_wall_s"]["median"] / row["lanes_wall_s"]["median"]
            row["rate_ratio"] = row["lanes_events_per_s"]["median"] / row["uproot_events_per_s"]["median"]
            results["rows"].append(row)
            print(f"{threads} thread(s), {runs['uproot'][0]['fields']} AuxDyn fields:", flush=True)
            for side in runs:
                wall, rate = row[f"{side}_wall_s"], row[f"{side}_events_per_s"]
                print(f"  {side:6}  whole process {wall['median']:6.2f} s [{wall['min']:.2f}-{wall['max']:.2f}]  "
                      f"reading {rate['median']:7.0f} events/s [{rate['min']:.0f}-{rate['max']:.0f}]", flush=True)
            print(f"  uproot's time / lanes' {row['time_ratio']:.2f}; lanes' rate / uproot's {row['rate_ratio']:.2f}",
                  flush=True)
    results["load_after"] = read_speed.load()
    print(f"load average after: {results['load_after']}")
    (arguments.out / "physlite_read.json").write_text(json.dumps(results, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
