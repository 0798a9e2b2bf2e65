#!/usr/bin/env python3
"""What a job started from Python costs over the same job from the command line: the default job, whole jobs,
paired rounds.

    .venv/bin/python bench/python_api.py [--rounds 7] [--events 1000]

Each round runs, from this one Python process, in turn:
  command         `lanes run -n EVENTS` (the built-in default job) as a subprocess, its wall time around it;
  command+report  the same with `--report` (a job from Python always writes its report, which it reads);
  python          lanes.Job.default() with events=EVENTS, .run(progress=False): the Job built (its plugins and
                  options checked against the catalogue, read once per session), its SPECs written, `lanes run`
                  started, its report read into the Result.
The figures are medians over the rounds with min and max; the overhead is python's median minus command's (and
minus command+report's), and, per round, python minus the command run just before it (their median, min and
max), so that a slow spell of the machine hits both. Also printed: what `import lanes` and the first catalogue
read (`lanes plugins --json`) cost once per session. The target (docs/python.md): at most 50 ms. Prints the CPU
model and the load before and after; figures are printed, never asserted.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import read_speed

REPO = Path(__file__).resolve().parents[1]


def timed(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def command(lanes, events, report=None):
    words = [str(lanes), "run", "-n", str(events)] + (["--report", str(report)] if report else [])

    def run():
        completed = subprocess.run(words, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if completed.returncode != 0:
            sys.exit(f"{' '.join(words)} failed: {completed.stderr.strip()[-2000:]}")
    return run


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def ms(s):
    return f"{1e3 * s['median']:8.1f} ms [{1e3 * s['min']:.1f} - {1e3 * s['max']:.1f}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="paired rounds (default 7)")
    parser.add_argument("--events", type=int, default=1000, help="the default job's events (default 1000)")
    options = parser.parse_args()
    print(f"CPU: {read_speed.cpu_model()}; load before: {read_speed.load()}", flush=True)

    start = time.perf_counter()
    import lanes  # noqa: E402  (timed: once per session)
    import_s = time.perf_counter() - start
    from lanes._locations import binary as lanes_binary
    binary = lanes_binary()
    catalogue_s = timed(lambda: lanes.Job.default())

    def python():
        job = lanes.Job.default()
        job.events = options.events
        job.run(progress=False)

    with tempfile.TemporaryDirectory() as scratch:
        measures = {"command": command(binary, options.events),
                    "command+report": command(binary, options.events, Path(scratch) / "report.json"),
                    "python": python}
        runs = {name: [] for name in measures}
        for number in range(1, options.rounds + 1):
            for name, measure in measures.items():
                runs[name].append(timed(measure))
            print(f"round {number}: " + "  ".join(f"{n} {1e3 * r[-1]:.1f} ms" for n, r in runs.items()), flush=True)
    figures = {name: spread(values) for name, values in runs.items()}
    paired = {base: spread([p - c for p, c in zip(runs["python"], runs[base])]) for base in ("command", "command+report")}
    for name, figure in figures.items():
        print(f"{name:15s} {ms(figure)}")
    for base, figure in paired.items():
        print(f"python - {base:15s} {ms(figure)}  (per round)")
    print(f"once per session: import lanes {1e3 * import_s:.1f} ms, the plugin catalogue {1e3 * catalogue_s:.1f} ms")
    print(f"load after: {read_speed.load()}")
    print(json.dumps({"cpu": read_speed.cpu_model(), "rounds": options.rounds, "events": options.events,
                      "figures_s": figures, "python_over_s": paired, "import_s": import_s, "catalogue_s": catalogue_s}))


if __name__ == "__main__":
    main()
