#!/usr/bin/env python3
"""Start-up: lanes' time to its first event on the 944-branch NanoAOD file against ROOT's own floor, paired rounds.

    .venv/bin/python bench/startup.py [--rounds 7] [--out bench-results]

ROOT's floor is build/bin/root_startup_floor (bench/floor/root_startup_floor.cpp): ROOT alone opens the file,
reads its TTree `Events` and entry 0 of every branch, as ROOT starts by default: its interpreter runs the child
processes that learn the dynamic linker's search path and the C++ library's include directories. lanes gives ROOT
those answers (ROOT_LDSYSPATH, CLING_LDSYSPATH, CLING_CPPSYSINCL; plugins/root/RootSupport.cpp), so the floor also
runs given the same answers (read from build/generated/root/StartupProbes.h): what is left is lanes' own cost.
Against them, in the same rounds (A B A B ...):
  ids      lanes run -t 1 -n 1 --source root:file=F           (the event's ids, no product read)
  every    lanes run -t 1 -n 1 --source root:file=F --output dummy   (every branch read, as bench/read_speed.py)
  default  lanes run -t 1 -n 1                                  (the built-in synthetic job: no ROOT file)
  empty    lanes run -t 1 -n 1 --source empty                   (no product, no module)
Each is timed two ways: the whole process's wall time, and its time to the first event, from this script's
start of the process (CLOCK_MONOTONIC, which both programs read as steady_clock) to the end of the first event:
the floor prints its clock after reading entry 0; lanes' run report gives its clock at main() and the phases after
it (`startup`, docs/reports.md). The figures are medians over the rounds with min and max, and each program's
median over each floor's. The phases, as medians: the floor's (loading to main(), ROOT's initialisation, TFile::Open,
reading the TTree, entry 0 of every branch) and lanes' for `every` (loading to main(), the command, plugins, ROOT,
the file's opening with its TTree, the source's layout, the job's construction, the first event).

Prints the CPU model, the core count and the load average before and after; writes every run to startup.json in
--out. Figures are printed, never asserted: this is a measurement, not a test.
"""

import argparse
import json
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

import read_speed

REPO = read_speed.REPO
LANES = read_speed.LANES
FLOOR = REPO / "build" / "bin" / "root_startup_floor"
PROBE_ANSWERS = REPO / "build" / "generated" / "root" / "StartupProbes.h"
NANOAOD = read_speed.FLAT


def timed(command, env=None):
    """Runs `command`: (the CLOCK_MONOTONIC second it was started at, its whole wall time, its stdout)."""
    launched = time.monotonic()
    wall, _, stdout = read_speed.run_process(command, env)
    return launched, wall, stdout


def probe_answers():
    """The environment in which ROOT runs none of its start-up probes: the answers lanes gives it."""
    defined = dict(re.findall(r'#define (\w+) "([^"]*)"', PROBE_ANSWERS.read_text()))
    return {"ROOT_LDSYSPATH": defined["LANES_LD_SYSTEM_PATH"], "CLING_LDSYSPATH": defined["LANES_LD_SYSTEM_PATH"],
            "CLING_CPPSYSINCL": defined["LANES_CXX_STDLIB_INCLUDES"]}


def floor_run(env=None):
    """The floor's wall time, time to first event and phases (from the clock readings it prints)."""
    launched, wall, out = timed([FLOOR, NANOAOD], env)
    stamps = json.loads(out)
    ends = ["main", "root", "open", "tree", "first_event"]
    phases = {end: stamps[end] - (stamps[before] if before else launched) for before, end in zip([None] + ends, ends)}
    return {"wall_s": wall, "first_event_s": stamps["first_event"] - launched, "branches": stamps["branches"],
            "loading_s": phases.pop("main"), "phases": phases}


def lanes_run(arguments, scratch):
    """lanes run -t 1 -n 1 ARGUMENTS: its wall time, time to first event and start-up phases (from its report)."""
    report_path = Path(scratch) / "report.json"
    launched, wall, _ = timed([LANES, "run", "-t", "1", "-n", "1", *arguments, "--report", report_path])
    startup = json.loads(report_path.read_text())["startup"]
    phases = {phase["phase"]: phase["s"] for phase in startup["phases"]}
    return {"wall_s": wall, "first_event_s": startup["main_clock_s"] + sum(phases.values()) - launched,
            "loading_s": startup["main_clock_s"] - launched, "phases": phases}


JOBS = {
    "ids": ["--source", f"root:file={NANOAOD}"],
    "every": ["--source", f"root:file={NANOAOD}", "--output", "dummy"],
    "default": [],
    "empty": ["--source", "empty"],
}
TITLES = {
    "floor": "ROOT's floor (open, read the tree, entry 0 of every branch)",
    "answered": "ROOT's floor, given the answers lanes gives ROOT's probes",
    "ids": "lanes, root source, the ids only",
    "every": "lanes, root source, every branch (--output dummy)",
    "default": "lanes, the default synthetic job (no ROOT file)",
    "empty": "lanes, --source empty",
}


def spread_text(s):
    return f"{s['median'] * 1e3:7.1f} ms [{s['min'] * 1e3:.1f}-{s['max'] * 1e3:.1f}]"


def phase_medians(runs):
    """{phase: median s} over `runs`, in the order of the first run's phases, loading first."""
    names = ["loading"] + list(runs[0]["phases"])
    values = {name: [run["loading_s"] if name == "loading" else run["phases"].get(name, 0.0) for run in runs]
              for name in names}
    return {name: statistics.median(v) for name, v in values.items()}


def markdown(rows, phases):
    lines = ["| program | whole process | to first event | ÷ the floor's | ÷ the answered floor's |",
             "| --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append(f"| {row['title']} | {spread_text(row['wall_s']).strip()} | "
                     f"{spread_text(row['first_event_s']).strip()} | {row['ratio']:.2f} | {row['ratio_answered']:.2f} |")
    for program, medians in phases.items():
        lines += ["", f"| phase ({TITLES[program]}) | median |", "| --- | --- |"]
        lines += [f"| {name} | {seconds * 1e3:.1f} ms |" for name, seconds in medians.items()]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="paired rounds (default 7)")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results")
    arguments = parser.parse_args()
    if arguments.rounds < 1:
        parser.error("--rounds must be at least 1")
    for binary in (LANES, FLOOR, PROBE_ANSWERS):
        if not binary.exists():
            parser.error(f"{binary} is not built (cmake --build build --target lanes root_startup_floor)")
    arguments.out.mkdir(parents=True, exist_ok=True)
    results = {"benchmark": "startup", "cpu": read_speed.cpu_model(), "cores": os.cpu_count(),
               "load_before": read_speed.load(), "rounds": arguments.rounds, "file": str(NANOAOD)}
    print(f"CPU: {results['cpu']}, {results['cores']} cores; load average before: {results['load_before']}; "
          f"{arguments.rounds} paired rounds; medians [min-max]", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        answers = probe_answers()
        measures = {"floor": floor_run, "answered": lambda: floor_run(answers)}
        measures.update({name: (lambda job=job: lanes_run(job, scratch)) for name, job in JOBS.items()})
        runs = read_speed.paired(arguments.rounds, measures)
    floor, answered = (statistics.median(run["first_event_s"] for run in runs[name]) for name in ("floor", "answered"))
    rows = []
    for name, measured in runs.items():
        row = {"program": name, "title": TITLES[name], "runs": measured,
               "wall_s": read_speed.spread(measured, "wall_s"), "first_event_s": read_speed.spread(measured, "first_event_s")}
        row["ratio"] = row["first_event_s"]["median"] / floor
        row["ratio_answered"] = row["first_event_s"]["median"] / answered
        rows.append(row)
        print(f"{row['title']:<62} whole {spread_text(row['wall_s'])}  first event {spread_text(row['first_event_s'])}"
              f"  ÷ floor {row['ratio']:.2f}, ÷ answered floor {row['ratio_answered']:.2f}", flush=True)
    results["rows"] = rows
    results["phases"] = {program: phase_medians(runs[program]) for program in ("floor", "answered", "every")}
    results["load_after"] = read_speed.load()
    print(f"load average after: {results['load_after']}")
    print()
    print(markdown(rows, results["phases"]))
    (arguments.out / "startup.json").write_text(json.dumps(results, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
