#!/usr/bin/env python3
"""The end of a job: a lane that has finished its run takes the back half of another lane's (ClaimedRuns::steal),
measured on a job whose costly events lie together in one half of the input.

    .venv/bin/python bench/tail_balance.py [--rounds 5] [--threads 2] [--out bench-results]

Makes, on first use in the git-ignored --out directory, a TTree of 10,000 entries in one cluster whose event
numbers are 1 to 10,000 (so that with the root source's default chunk, a cluster, each of 2 lanes claims one run of
5,000), and two files of per-event times for the `event-time` module, which spends, per event, the seconds on the
line of its event number:
  skewed    0.8 ms an event in the first half, 0.2 ms in the second;
  balanced  the same times alternating, 0.8 and 0.2 ms.
Both cost the same CPU in all. Each round runs lanes on both, one after the other (A B A B ...), with --threads
threads into the dummy output, and reads each run's report: wall time, the threads' idle time, runs_stolen. Were
the runs not split, the skewed job would end with one lane alone for the 3 s its half costs more (4.1 s against
2.6 s on 2 cores); split, it takes as long as the balanced one. Prints the CPU model, the load average before and
after, medians [min-max], and the skewed job's wall time over the balanced one's (1.00: the end costs nothing).
Figures are printed, never asserted: this is a measurement, not a test.
"""

import argparse
import array
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LANES = Path(os.environ.get("LANES_BINARY", REPO / "build" / "bin" / "lanes"))
EVENTS = 10_000
HEAVY_S, LIGHT_S = 0.0008, 0.0002


def make_tree(path):
    """EVENTS entries of run, luminosityBlock, event (1..EVENTS) and a float, in one cluster."""
    import ROOT  # the venv's wheel; imported only to make the input once

    file = ROOT.TFile(str(path), "RECREATE")
    tree = ROOT.TTree("Events", "Events")
    tree.SetAutoFlush(0)  # one cluster: the root source's default chunk is the whole file
    run, lumi, event, x = array.array("I", [0]), array.array("I", [0]), array.array("Q", [0]), array.array("f", [0])
    tree.Branch("run", run, "run/i")
    tree.Branch("luminosityBlock", lumi, "luminosityBlock/i")
    tree.Branch("event", event, "event/l")
    tree.Branch("x", x, "x/F")
    for entry in range(EVENTS):
        run[0], lumi[0], event[0], x[0] = 1, 1, entry + 1, 0.5 * entry
        tree.Fill()
    tree.Write()
    file.Close()


def inputs(out):
    out.mkdir(parents=True, exist_ok=True)
    tree = out / "tail_balance.root"
    if not tree.exists():
        with tempfile.NamedTemporaryFile(dir=out, suffix=".root", delete=False) as partial:
            make_tree(partial.name)
        Path(partial.name).replace(tree)
    half = EVENTS // 2
    times = {"skewed": [HEAVY_S] * half + [LIGHT_S] * half,
             "balanced": [HEAVY_S if entry % 2 == 0 else LIGHT_S for entry in range(EVENTS)]}
    files = {}
    for name, seconds in times.items():
        files[name] = out / f"tail_balance_{name}.txt"
        files[name].write_text("".join(f"{s}\n" for s in seconds))
    return tree, files


def run_lanes(tree, times, threads, report):
    command = [LANES, "run", "-t", threads, "-n", "0", "--output", "dummy", "--source", f"root:file={tree}",
               "--module", f"event-time:file={times},mode=busy", "--report", report]
    completed = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed ({completed.returncode}): {completed.stderr.strip()[-2000:]}")
    data = json.loads(Path(report).read_text())
    # runs_stolen is absent from the reports of a lanes from before runs were split (to compare builds)
    return {"wall_s": data["wall_s"], "idle_s": data["thread_time"]["idle_s"],
            "runs_stolen": data.get("runs_stolen", 0)}


def spread(values, unit):
    return f"{statistics.median(values):6.3f}{unit} [{min(values):.3f}-{max(values):.3f}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (default 5)")
    parser.add_argument("--threads", type=int, default=2, help="threads, one lane each (default 2)")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results")
    args = parser.parse_args()
    if not LANES.exists():
        sys.exit(f"{LANES} is not built: run scripts/test first")
    tree, files = inputs(args.out)
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or "unknown")
    print(f"CPU: {model}, {os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.2f}; "
          f"{args.rounds} paired rounds, {args.threads} threads; medians [min-max]")
    runs = {name: [] for name in files}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.rounds):
            for name, times in files.items():
                runs[name].append(run_lanes(tree, times, args.threads, Path(scratch) / "report.json"))
    for name, measured in runs.items():
        print(f"{name:9s} wall {spread([m['wall_s'] for m in measured], ' s')}  "
              f"idle {spread([m['idle_s'] for m in measured], ' thread-s')}  "
              f"runs stolen {statistics.median(m['runs_stolen'] for m in measured):.0f}")
    ratio = statistics.median(m["wall_s"] for m in runs["skewed"]) / statistics.median(
        m["wall_s"] for m in runs["balanced"])
    print(f"skewed / balanced wall time: {ratio:.2f}; load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
