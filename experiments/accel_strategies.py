#!/usr/bin/env python3
"""The CMS study of GPU work scheduling, on the emulated device.

Runs examples/hlt-like.toml CPU-only (--accel none) and with each of the five
completion strategies, for every split of the machine's cores into
processes x threads (lanes = 3/4 of threads, at least 1), and reports each
strategy's event rate relative to the CPU-only menu. Then runs a
device-bound configuration (one kernel slot, a slow host->device copy
engine) and reports the host CPU time per event of each strategy.

    .venv/bin/python experiments/accel_strategies.py [--out bench-results] [--seconds 4]

Writes OUT/accel_strategies.json (every run's report figures and the derived
ones) and OUT/accel_strategies.png. Reads only the run reports' JSON.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MENU = REPO / "examples" / "hlt-like.toml"
STRATEGIES = ["sync-single", "sync-multi", "external-worker", "external-worker-d2h", "waiting-pool"]
# Device-bound: one kernel at a time and a 100 MB/s host->device engine (the
# menu's 380 kB of raw data take 3.8 ms an event), so the host waits for the device.
DEVICE_BOUND = "emulated:slots=1,h2d=1e8"
STUDY = {  # the study's published findings, for the comparison
    "sync-multi vs sync-single": "+7% to +20%",
    "external-worker vs sync-multi": "within 1.5%",
    "external-worker-d2h vs external-worker": "+1%",
    "waiting-pool vs external-worker-d2h": "+2%, and the lowest CPU use",
}


def cpu_seconds(report):
    """CPU time of a job: its own, or its workers' in a multi-process report (lanes run --processes)."""
    if "workers" in report:
        return sum(cpu_seconds(w["report"]) for w in report["workers"] if "report" in w)
    return report["cpu_user_s"] + report["cpu_sys_s"]


def run_processes(binary, processes, threads, events, accel, strategy):
    """Runs the job as `processes` processes of `threads` threads; returns the summed figures."""
    lanes = max(1, (3 * threads) // 4)
    common = ["run", "--menu", str(MENU), "-t", str(threads), "-l", str(lanes), "--accel", accel]
    if strategy:
        common += ["--accel-strategy", strategy]
    with tempfile.TemporaryDirectory() as scratch:
        # Forked workers (lanes run --processes), each with its own emulated device.
        extra = ["--processes", str(processes)] if processes > 1 else []
        commands = [[binary, *common, *extra, "-n", str(events * processes), "--report", f"{scratch}/r0.json"]]
        running = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for c in commands]
        for process, command in zip(running, commands):
            _, stderr = process.communicate()
            if process.returncode != 0:
                sys.exit(f"accel_strategies: {' '.join(command)} failed: {stderr.strip()}")
        reports = [json.loads(Path(f"{scratch}/r{i}.json").read_text()) for i in range(len(commands))]
    cpu = [cpu_seconds(r) for r in reports]
    return {
        "processes": processes,
        "threads": threads,
        "lanes": lanes,
        "accel": accel,
        "strategy": strategy or "cpu-only",
        "events": sum(r["events"] for r in reports),
        "events_per_s": sum(r["events_per_s"] for r in reports),
        "cpu_s": sum(cpu),
        "wall_s": max(r["wall_s"] for r in reports),
    }


def events_for(binary, seconds, cores):
    """Events that the CPU-only menu processes in about `seconds` on one process of all cores."""
    probe = run_processes(binary, 1, cores, 40, "none", None)
    return max(40, int(probe["events_per_s"] * seconds))


def throughput_scan(binary, cores, events):
    scan = []
    for threads in sorted(t for t in range(1, cores + 1) if cores % t == 0):
        processes = cores // threads
        baseline = run_processes(binary, processes, threads, events // processes, "none", None)
        runs = [baseline]
        for strategy in STRATEGIES:
            run = run_processes(binary, processes, threads, events // processes, "emulated", strategy)
            run["relative"] = run["events_per_s"] / baseline["events_per_s"]
            runs.append(run)
        scan.append({"processes": processes, "threads": threads, "runs": runs})
    return scan


def device_bound(binary, cores, events):
    runs = []
    for strategy in STRATEGIES:
        run = run_processes(binary, 1, cores, events, DEVICE_BOUND, strategy)
        run["cpu_ms_per_event"] = 1e3 * run["cpu_s"] / run["events"]
        runs.append(run)
    return runs


def comparisons(scan, bound):
    """The study's four comparisons, on the one-process point and the device-bound runs."""
    full = {r["strategy"]: r["events_per_s"] for r in scan[-1]["runs"]}
    cpu = {r["strategy"]: r["cpu_ms_per_event"] for r in bound}
    change = lambda a, b: f"{100 * (full[a] / full[b] - 1):+.1f}%"
    return {
        "sync-multi vs sync-single": change("sync-multi", "sync-single"),
        "external-worker vs sync-multi": change("external-worker", "sync-multi"),
        "external-worker-d2h vs external-worker": change("external-worker-d2h", "external-worker"),
        "waiting-pool vs external-worker-d2h": change("waiting-pool", "external-worker-d2h")
        + f", lowest CPU use: {min(cpu, key=cpu.get)}",
    }


def plot(scan, bound, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    threads = [point["threads"] for point in scan]
    for strategy in STRATEGIES:
        relative = [next(r["relative"] for r in point["runs"] if r["strategy"] == strategy) for point in scan]
        left.plot(threads, relative, marker="o", label=strategy)
    left.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    left.set_xticks(threads, [f"{p['processes']}x{p['threads']}" for p in scan])
    left.set_xlabel("processes x threads per process (lanes = 3/4 of threads, at least 1)")
    left.set_ylabel("event rate relative to CPU-only")
    left.set_title("hlt-like menu, emulated device")
    left.legend(fontsize=8)
    right.bar(range(len(bound)), [r["cpu_ms_per_event"] for r in bound], color="tab:gray")
    right.set_xticks(range(len(bound)), [r["strategy"] for r in bound], rotation=25, ha="right", fontsize=8)
    right.set_ylabel("host CPU time per event (ms)")
    right.set_title(f"device-bound ({DEVICE_BOUND}), {bound[0]['threads']} threads")
    for i, r in enumerate(bound):
        right.annotate(f"{r['events_per_s']:.0f}/s", (i, r["cpu_ms_per_event"]), ha="center", va="bottom", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench-results", help="directory for the JSON and PNG (default: bench-results)")
    parser.add_argument("--binary", default=os.environ.get("LANES_BINARY", str(REPO / "build" / "bin" / "lanes")))
    parser.add_argument("--seconds", type=float, default=4.0, help="about how long each CPU-only run takes")
    parser.add_argument("--cores", type=int, default=os.cpu_count(), help="processes x threads (default: the machine's cores)")
    arguments = parser.parse_args()

    events = events_for(arguments.binary, arguments.seconds, arguments.cores)
    scan = throughput_scan(arguments.binary, arguments.cores, events)
    bound = device_bound(arguments.binary, arguments.cores, max(40, events // 4))
    result = {
        "menu": str(MENU.relative_to(REPO)),
        "cores": arguments.cores,
        "multi_process": "lanes run --processes: forked workers, each with its own emulated device",
        "scan": scan,
        "device_bound": {"accel": DEVICE_BOUND, "runs": bound},
        "comparison": comparisons(scan, bound),
        "study": STUDY,
    }
    out = Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "accel_strategies.json").write_text(json.dumps(result, indent=1) + "\n")
    plot(scan, bound, out / "accel_strategies.png")

    print(f"multi-process runs: {result['multi_process']}")
    for point in scan:
        print(f"{point['processes']}x{point['threads']}: " + ", ".join(
            f"{r['strategy']} {r['events_per_s']:.0f}/s" + (f" ({r['relative']:.2f}x)" if "relative" in r else "")
            for r in point["runs"]))
    print("device-bound: " + ", ".join(f"{r['strategy']} {r['cpu_ms_per_event']:.2f} ms CPU/event" for r in bound))
    for key, value in result["comparison"].items():
        print(f"{key}: {value} (study: {STUDY[key]})")
    print(f"wrote {out / 'accel_strategies.json'} and {out / 'accel_strategies.png'}")


if __name__ == "__main__":
    main()
