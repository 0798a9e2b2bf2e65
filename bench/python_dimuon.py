#!/usr/bin/env python3
"""The Python dimuon analyzer against the C++ one and against uproot + numpy: the same histogram, and each one's
events/s at 1 thread, in paired rounds.

    .venv/bin/python bench/python_dimuon.py [--rounds 5] [--copies 20] [--out bench-results]

The input is CMS Open Data DoubleMuParked (data/files/Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root,
1,000 events of muon pairs), read --copies times in one job (the file listed that many times: every event read
from the file, not replayed from memory). Three ways, each round in turn:
  c++     `lanes run -t 1 -n 0 --source rntuple:file=... --output dimuon:file=mass.root`: examples/external/dimuon,
          built against this build installed into --out (made on first use);
  python  the same job with examples/python/dimuon.py as a Python analyzer (`--module python:function=...`), run
          inside lanes by its embedded interpreter;
  uproot  uproot reading the same five branches (library="np") and a Python loop calling the same function on each
          event's arrays (a dict of them as the `event`): what an analyst writes without lanes.
lanes' events/s is its report's (the event loop, without the start-up: loading ROOT, starting Python); uproot's is
the events over the wall time of its reading and loop. Before the rounds, the three histograms are compared bin by
bin (under- and overflow included). Prints the medians with min and max, python / c++ and python / uproot, the CPU
model and the load before and after; the goals (docs/python.md): within 2x of c++, faster than uproot. Figures are
printed, never asserted.
"""

import argparse
import json
import pickle
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import uproot

import read_speed

REPO = Path(__file__).resolve().parents[1]
DOUBLEMU = REPO / "data" / "files" / "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root"
ANALYZER = REPO / "examples" / "python" / "dimuon.py"
sys.path.insert(0, str(ANALYZER.parent))
import dimuon  # noqa: E402  (examples/python/dimuon.py)


def check(command, cwd=None):
    completed = subprocess.run([str(c) for c in command], capture_output=True, text=True, cwd=cwd,
                               stdin=subprocess.DEVNULL)
    if completed.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed: {completed.stderr.strip()[-2000:]}")
    return completed


def cpp_example(out):
    """libdimuon.so, built against this build installed into OUT/prefix (as tests/install does), once."""
    library = out / "dimuon-build" / "libdimuon.so"
    if not library.is_file():
        check(["cmake", "--install", REPO / "build", "--prefix", out / "prefix"])
        check(["cmake", "-S", REPO / "examples" / "external" / "dimuon", "-B", out / "dimuon-build", "-G", "Ninja",
               f"-DCMAKE_PREFIX_PATH={out / 'prefix'}"])
        check(["cmake", "--build", out / "dimuon-build"])
    return library


def lanes_job(out, copies, *components):
    """A 1-thread lanes job over the input `copies` times with `components`: its report."""
    report = out / "report.json"
    source = "rntuple:" + ",".join([f"file={DOUBLEMU}"] * copies)
    check([read_speed.LANES, "run", "-t", "1", "-n", "0", "--source", source, *components, "--report", report], cwd=out)
    return json.loads(report.read_text())


def uproot_loop(copies):
    """uproot reading the five branches of each copy, the analyzer's function called on each event: (events/s,
    results)."""
    results = dimuon.dimuon.fresh_results()
    start = time.perf_counter()
    events = 0
    for _ in range(copies):
        with uproot.open(DOUBLEMU) as file:
            arrays = file["Events"].arrays(dimuon.MUONS, library="np")
        columns = [arrays[name] for name in dimuon.MUONS]
        for values in zip(*columns):
            dimuon.dimuon.function(dict(zip(dimuon.MUONS, values)), results)
            events += 1
    return events / (time.perf_counter() - start), results


def histograms(out, library, copies):
    """The three histograms' 102 counts, c++, python, uproot."""
    lanes_job(out, copies, "--plugin-library", library, "--output", "dimuon:file=mass.root", "--module",
              f"python:function={ANALYZER}:dimuon,results=mass.pickle")
    with uproot.open(out / "mass.root") as file:
        cpp = list(file["dimuon"].values(flow=True))
    with open(out / "mass.pickle", "rb") as f:
        python = list(pickle.load(f)["mass"].values(flow=True))
    return cpp, python, list(uproot_loop(copies)[1]["mass"].values(flow=True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (default 5)")
    parser.add_argument("--copies", type=int, default=20, help="times the input is read in a job (default 20)")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results", help="scratch (default bench-results)")
    options = parser.parse_args()
    out = options.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(f"CPU: {read_speed.cpu_model()}; load before: {read_speed.load()}", flush=True)
    library = cpp_example(out)
    cpp, python, loop = histograms(out, library, 1)
    print(f"histograms: c++ == python {cpp == python}, python == uproot {python == loop} ({int(sum(cpp))} pairs)")

    measures = {
        "c++": lambda: lanes_job(out, options.copies, "--plugin-library", library, "--output",
                                 "dimuon:file=mass.root")["events_per_s"],
        "python": lambda: lanes_job(out, options.copies, "--module",
                                    f"python:function={ANALYZER}:dimuon")["events_per_s"],
        "uproot": lambda: uproot_loop(options.copies)[0],
    }
    rates = {name: [] for name in measures}
    for number in range(1, options.rounds + 1):
        for name, measure in measures.items():
            rates[name].append(measure())
        print(f"round {number}: " + "  ".join(f"{n} {r[-1]:.0f} ev/s" for n, r in rates.items()), flush=True)
    figures = {name: {"median": float(np.median(v)), "min": min(v), "max": max(v)} for name, v in rates.items()}
    for name, figure in figures.items():
        print(f"{name:7s} {figure['median']:9.0f} events/s [{figure['min']:.0f} - {figure['max']:.0f}]")
    ratios = {"python/c++": figures["python"]["median"] / figures["c++"]["median"],
              "python/uproot": figures["python"]["median"] / figures["uproot"]["median"]}
    print("  ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
    print(f"load after: {read_speed.load()}")
    print(json.dumps({"cpu": read_speed.cpu_model(), "rounds": options.rounds, "events": 1000 * options.copies,
                      "same_histogram": cpp == python == loop, "events_per_s": figures, "ratios": ratios}))


if __name__ == "__main__":
    main()
