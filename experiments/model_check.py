#!/usr/bin/env python3
"""`lanes model` against real runs: each menu measured at many thread counts and predicted from its 2-thread run.

Sleep work (every module, waiter and the serial output sleeps instead of burning CPU): a sleeping lane needs no core,
so 1 to 128 threads run for real on a 2-core machine, and `one` modules, `limited` queues, a serial output and the
device queues shape the rate as they would on a large node. Busy work: at 1 and 2 threads (and 16 when the machine
has 16 cores). Each point is the median of 3 runs; each prediction is `lanes model` of the 2-thread run whose rate
is the median, for that point's threads and events, with the machine's cores (--cores). The menus:
examples/reconstruction.toml; examples/hlt-like.toml on the emulated device with each of the five strategies;
examples/one-output.toml (a serial output decides the rate); the default NanoAOD-like job (a waiter per product).

    .venv/bin/python experiments/model_check.py            # the whole check (about 40 minutes on 2 cores)
    .venv/bin/python experiments/model_check.py --quick    # 1, 2 and 8 threads, one run each (a few minutes)

Writes OUT/model_check.json (every run's figures, the load before it, each prediction and its error) and
OUT/model_check.png (default OUT: docs/images), and prints the error table of docs/model.md. Reads only the JSON
that lanes writes.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STRATEGIES = ["sync-single", "sync-multi", "external-worker", "external-worker-d2h", "waiting-pool"]
NANOAOD = ["--source", f"synthetic:profile={REPO / 'data' / 'profiles' / 'nanoaod.json'}", "--output", "dummy"]
SLEEP_THREADS = [1, 2, 4, 8, 16, 32, 64, 128]
QUICK_THREADS = [1, 2, 8]


def menus():
    """(name, the run's arguments, the menu file or None); waiters and modules as the menu writes them (busy)."""
    hlt = REPO / "examples" / "hlt-like.toml"
    return ([("reconstruction", [], REPO / "examples" / "reconstruction.toml")]
            + [(f"hlt-like {s}", ["--accel", "emulated", "--accel-strategy", s], hlt) for s in STRATEGIES]
            + [("one output", [], REPO / "examples" / "one-output.toml"),
               ("NanoAOD-like", NANOAOD + ["--waiter", "busy:scale=1e-6"], None)])


# ---------------------------------------------------------------- sleep menus

def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    return "[" + ", ".join(toml_value(v) for v in value) + "]"


def toml_lines(table, prefix=""):
    """A table's keys as TOML lines, its nested tables as dotted keys."""
    lines = []
    for key, value in table.items():
        if isinstance(value, dict):
            lines += toml_lines(value, f"{prefix}{key}.")
        else:
            lines.append(f"{prefix}{key} = {toml_value(value)}")
    return lines


def toml_text(menu):
    text = []
    for name, section in menu.items():
        tables = section if isinstance(section, list) else [section]
        for table in tables:
            text += [f"[[{name}]]" if isinstance(section, list) else f"[{name}]"] + toml_lines(table) + [""]
    return "\n".join(text)


def sleeping(menu):
    """The menu with every busy cost slept instead: modules, the dummy output's time, busy waiters."""
    for module in menu.get("module", []):
        if module["plugin"] in ("producer", "filter", "analyzer"):
            module["work"] = "sleep"
    for output in menu.get("output", []):
        if output["plugin"] == "dummy" and "time" in output:
            output["work"] = "sleep"
    for waiter in menu.get("waiter", []):
        if waiter["plugin"] == "busy":
            waiter["plugin"] = "sleep"
    return menu


def job_arguments(arguments, menu_file, work, scratch):
    """The run's arguments for `work` (busy, as written, or sleep)."""
    if work == "busy":
        return arguments + (["--menu", str(menu_file)] if menu_file else [])
    if menu_file is None:
        return [a.replace("busy:", "sleep:") for a in arguments]
    path = Path(scratch) / f"sleep-{menu_file.name}"
    path.write_text(toml_text(sleeping(tomllib.loads(menu_file.read_text()))))
    return arguments + ["--menu", str(path)]


# ---------------------------------------------------------------- runs and predictions

def lanes(binary, words, what):
    done = subprocess.run([binary, *words], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"model_check: {what} failed: {' '.join(words)}: {done.stderr.strip()}")


def measure(binary, job, threads, events, scratch, index):
    """One run: its report's figures and the load average before it."""
    path = Path(scratch) / f"run-{index}.json"
    load = os.getloadavg()[0]
    lanes(binary, ["run", *job, "-t", str(threads), "-n", str(events), "--report", str(path)], "a run")
    report = json.loads(path.read_text())
    return {"events_per_s": report["events_per_s"], "wall_s": report["wall_s"],
            "cpu_s": report["cpu_user_s"] + report["cpu_sys_s"], "load": load, "report": str(path)}


def median_run(runs):
    return sorted(runs, key=lambda r: r["events_per_s"])[len(runs) // 2]


def predict(binary, report, threads, events, cores, scratch):
    path = Path(scratch) / f"model-{threads}-{events}.json"
    lanes(binary, ["model", report, "-t", str(threads), "-n", str(events), "--cores", str(cores), "--report", str(path)],
          "a prediction")
    predicted = json.loads(path.read_text())
    bottleneck = predicted["model"]["bottleneck"]
    return {"events_per_s": predicted["events_per_s"], "cpu_efficiency": predicted["cpu_efficiency"],
            "simulation_s": predicted["model"]["simulation_s"],
            "busiest": bottleneck and {"name": bottleneck["name"], "utilization": bottleneck["utilization"]}}


def events_for(rate, seconds):
    return int(min(100000, max(200, rate * seconds)))


def check_menu(binary, name, job, work, thread_counts, options, scratch):
    """Measures the menu at each thread count and predicts each from the 2-thread run."""
    probe = measure(binary, job, 2, 200, scratch, f"{name}-{work}-probe".replace(" ", "_"))
    base_events = events_for(probe["events_per_s"], options.seconds)
    base_runs = [measure(binary, job, 2, base_events, scratch, f"{name}-{work}-2-{i}".replace(" ", "_"))
                 for i in range(options.runs)]
    base = median_run(base_runs)["report"]
    points = []
    for threads in thread_counts:
        guess = predict(binary, base, threads, base_events, options.cores, scratch)["events_per_s"]
        events = base_events if threads == 2 else events_for(guess, options.seconds)
        runs = base_runs if threads == 2 else [
            measure(binary, job, threads, events, scratch, f"{name}-{work}-{threads}-{i}".replace(" ", "_"))
            for i in range(options.runs)]
        rates = [r["events_per_s"] for r in runs]
        measured = statistics.median(rates)
        predicted = predict(binary, base, threads, events, options.cores, scratch)
        points.append({"threads": threads, "events": events, "runs": runs,
                       "measured": {"median": measured, "min": min(rates), "max": max(rates)},
                       "load": [r["load"] for r in runs], "predicted": predicted,
                       "error": predicted["events_per_s"] / measured - 1})
        print(f"  {name} ({work}) {threads:>3} threads: measured {measured:9.1f}/s, predicted "
              f"{predicted['events_per_s']:9.1f}/s, error {100 * points[-1]['error']:+6.1f}%, load "
              f"{max(points[-1]['load']):.1f}", flush=True)
    return {"menu": name, "work": work, "model_input": base, "points": points}


# ---------------------------------------------------------------- figures

def plot(result, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    checks = result["checks"]
    columns = 4
    rows = (len(checks) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(4 * columns, 3.1 * rows), squeeze=False)
    for axis, check in zip(axes.flat, checks):
        points = check["points"]
        threads = [p["threads"] for p in points]
        median = [p["measured"]["median"] for p in points]
        low = [p["measured"]["median"] - p["measured"]["min"] for p in points]
        high = [p["measured"]["max"] - p["measured"]["median"] for p in points]
        axis.errorbar(threads, median, yerr=[low, high], fmt="o", color="tab:blue", label="measured (median, min-max)")
        axis.plot(threads, [p["predicted"]["events_per_s"] for p in points], "-", color="tab:orange",
                  label="predicted from 2 threads")
        axis.set_xscale("log", base=2)
        axis.set_xticks(threads, [str(t) for t in threads])
        axis.set_ylim(bottom=0)
        axis.set_title(f"{check['menu']} ({check['work']})", fontsize=9)
        axis.set_xlabel("threads", fontsize=8)
        axis.set_ylabel("events/s", fontsize=8)
        axis.tick_params(labelsize=7)
    for axis in list(axes.flat)[len(checks):]:
        axis.axis("off")
    axes.flat[0].legend(fontsize=7)
    figure.suptitle(f"lanes model against real runs on {result['machine']['cpu']} ({result['machine']['cores']} cores; "
                    f"load before the runs {result['load_range'][0]:.1f}-{result['load_range'][1]:.1f})", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def error_table(result):
    """The errors as docs/model.md's markdown table: a row per menu, a column per thread count."""
    counts = sorted({p["threads"] for c in result["checks"] for p in c["points"]})
    lines = ["| menu | work | " + " | ".join(f"{t}" for t in counts) + " |",
             "| --- | --- | " + " | ".join("---:" for _ in counts) + " |"]
    for check in result["checks"]:
        errors = {p["threads"]: f"{100 * p['error']:+.0f}%" for p in check["points"]}
        lines.append(f"| {check['menu']} | {check['work']} | " + " | ".join(errors.get(t, "") for t in counts) + " |")
    return "\n".join(lines)


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "images"), help="directory of the JSON and PNG")
    parser.add_argument("--binary", default=os.environ.get("LANES_BINARY", str(REPO / "build" / "bin" / "lanes")))
    parser.add_argument("--quick", action="store_true", help="1, 2 and 8 threads, one run each, short runs")
    parser.add_argument("--seconds", type=float, help="about how long each run takes (default: 3, quick: 1)")
    parser.add_argument("--runs", type=int, help="runs per point (default: 3, quick: 1)")
    parser.add_argument("--menus", help="only the menus whose name contains this text")
    options = parser.parse_args()
    options.seconds = options.seconds or (1.0 if options.quick else 3.0)
    options.runs = options.runs or (1 if options.quick else 3)
    options.cores = os.cpu_count()
    sleep_threads = QUICK_THREADS if options.quick else SLEEP_THREADS
    busy_threads = [1, 2] + ([16] if options.cores >= 16 else [])
    result = {"machine": {"cpu": cpu_model(), "cores": options.cores, "host": platform.node()},
              "quick": options.quick, "runs_per_point": options.runs, "seconds_per_run": options.seconds,
              "checks": []}
    with tempfile.TemporaryDirectory() as scratch:
        for name, arguments, menu_file in menus():
            if options.menus and options.menus not in name:
                continue
            for work, counts in (("sleep", sleep_threads), ("busy", busy_threads)):
                job = job_arguments(arguments, menu_file, work, scratch)
                result["checks"].append(check_menu(options.binary, name, job, work, counts, options, scratch))
        for check in result["checks"]:
            for point in check["points"]:
                for run in point["runs"]:
                    run.pop("report")
            check["model_input"] = Path(check["model_input"]).name
    loads = [load for c in result["checks"] for p in c["points"] for load in p["load"]]
    result["load_range"] = [min(loads), max(loads)]
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "model_check.json").write_text(json.dumps(result, indent=1) + "\n")
    plot(result, out / "model_check.png")
    print(error_table(result))
    print(f"wrote {out / 'model_check.json'} and {out / 'model_check.png'}")


if __name__ == "__main__":
    main()
