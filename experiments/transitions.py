"""What does a lumi boundary cost at N events in flight, and how many concurrent lumis remove it? (lanes run)

CMS found non-event transitions to be "one major serialization point" as thread counts grew (C. Jones,
Implementing Concurrent Non-Event Transitions in CMS, CHEP 2018): at a lumi boundary every stream drained
before the next lumi could begin. This measures the same on lanes' scheduler: events/s (relative to the same
job without lumi boundaries) and CPU efficiency against events per lumi (1 ... 10,000), for
--concurrent-lumis 1, 2 and 4, on three machines:

  busy2    2 threads x 2 lanes, busy work (real cores)
  sleep16  16 lanes of sleep work (a sleeping lane needs no core: the scheduler at scale on a small machine)
  sleep64  64 lanes of sleep work

Menus (the `empty` source numbered into lumis with events-per-lumi=N):
  summary  a per-event analyzer and a global per-lumi summary whose end-lumi costs END x the per-event time
  watcher  the same, plus a `one` module that watches lumis: the job then holds one lumi in flight
  iovs     the summary menu with a conditions record whose interval changes every lumi and takes LOAD x the
           per-event time to load, at --concurrent-lumis 2 and --concurrent-iovs 1 and 2

Writes OUT/transitions.json and OUT/transitions.png (default OUT: bench-results/). --quick runs a few points,
once, to check the script.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

MACHINES = {
    # name: threads, lanes, work, seconds per event, events per point
    "busy2": (2, 2, "busy", 2e-4, 12000),
    "sleep16": (16, 16, "sleep", 5e-3, 6000),
    "sleep64": (64, 64, "sleep", 5e-3, 24000),
}
EVENTS_PER_LUMI = [1, 10, 100, 1000, 10000]
CONCURRENT_LUMIS = [1, 2, 4]
END = 2.0   # the summary's end-lumi, in per-event times
LOAD = 4.0  # a conditions payload's load, in per-event times


def cpu_model():
    with open("/proc/cpuinfo") as cpuinfo:
        return next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), platform.machine())


def lanes_binary():
    return os.environ.get("LANES_BINARY", str(REPO / "build" / "bin" / "lanes"))


def menu_args(machine, menu, events_per_lumi, concurrent_lumis, concurrent_iovs=1):
    threads, lanes, work, seconds, events = MACHINES[machine]
    if events_per_lumi is not None:
        # Lumis of a few events run at a few lumis' worth of events/s: the point keeps to about 10 s.
        events = min(events, 600 * events_per_lumi)
    source = "empty" if events_per_lumi is None else f"empty:events-per-lumi={events_per_lumi}"
    args = ["-t", threads, "-l", lanes, "-n", events, "--source", source, "--output", "dummy",
            "--module", f"analyzer:label=event,time={seconds},work={work}",
            "--module", f"lumi-work:label=summary,end-lumi={END * seconds},work={work}",
            "--concurrent-lumis", concurrent_lumis]
    if menu == "watcher":
        args += ["--module", "lumi-work:label=watcher,concurrency=one"]
    if menu == "iovs":
        args += ["--module", "conditions:label=calibrated,record=calib,reads=10",
                 "--conditions", f"calib:every=1,bytes=65536,load={LOAD * seconds},work={work},"
                                 f"concurrent-iovs={concurrent_iovs}"]
    return [str(a) for a in args]


def run_point(directory, args):
    report = Path(directory) / "report.json"
    completed = subprocess.run([lanes_binary(), "run", *args, "--report", str(report)], capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"transitions.py: lanes run {' '.join(args)} failed ({completed.returncode}):\n{completed.stderr}")
    result = json.loads(report.read_text())
    time = result["thread_time"]
    return {"events_per_s": result["events_per_s"], "cpu_efficiency": result["cpu_efficiency"],
            "boundary_share": time["boundary_s"] / time["total_s"] if time["total_s"] else 0.0,
            "lumis": result["runs_and_lumis"]["lumis"],
            "concurrent_lumis": result["runs_and_lumis"]["concurrent_lumis"]}


def median_of(samples, key):
    return statistics.median(s[key] for s in samples)


def measure(directory, repeat, label, args):
    samples = [run_point(directory, args) for _ in range(repeat)]
    point = {key: median_of(samples, key) for key in ("events_per_s", "cpu_efficiency", "boundary_share")}
    point.update(min_events_per_s=min(s["events_per_s"] for s in samples),
                 max_events_per_s=max(s["events_per_s"] for s in samples),
                 lumis=samples[0]["lumis"], concurrent_lumis_held=samples[0]["concurrent_lumis"])
    print(f"  {label}: {point['events_per_s']:,.0f} events/s [{point['min_events_per_s']:,.0f}-"
          f"{point['max_events_per_s']:,.0f}], CPU {100 * point['cpu_efficiency']:.0f}%, "
          f"boundary {100 * point['boundary_share']:.1f}%", flush=True)
    return point


def experiment(args):
    machines = ["busy2", "sleep64"] if args.quick else list(MACHINES)
    epls = [10, 1000] if args.quick else EVENTS_PER_LUMI
    results = {"machines": {}, "end_lumi_in_event_times": END, "load_in_event_times": LOAD}
    with tempfile.TemporaryDirectory() as directory:
        for machine in machines:
            print(f"{machine}:", flush=True)
            entry = {"baseline": measure(directory, args.repeat, "no boundaries",
                                         menu_args(machine, "summary", None, 1)),
                     "summary": {}, "watcher": {}, "iovs": {}}
            for cl in (CONCURRENT_LUMIS[:2] if args.quick else CONCURRENT_LUMIS):
                entry["summary"][str(cl)] = {str(epl): measure(directory, args.repeat, f"summary, {cl} lumis, {epl}/lumi",
                                                               menu_args(machine, "summary", epl, cl))
                                             for epl in epls}
            entry["watcher"]["1"] = {str(epl): measure(directory, args.repeat, f"watcher, {epl}/lumi",
                                                       menu_args(machine, "watcher", epl, 4)) for epl in epls}
            for iovs in (1, 2):
                entry["iovs"][str(iovs)] = {str(epl): measure(directory, args.repeat, f"iovs {iovs}, {epl}/lumi",
                                                              menu_args(machine, "iovs", epl, 2, iovs))
                                            for epl in epls if epl <= 1000}
            results["machines"][machine] = entry
    return results


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    machines = list(results["machines"])
    figure, axes = plt.subplots(2, len(machines), figsize=(5 * len(machines), 8), squeeze=False)
    for column, machine in enumerate(machines):
        entry = results["machines"][machine]
        base = entry["baseline"]["events_per_s"]
        top, bottom = axes[0][column], axes[1][column]
        for cl, points in entry["summary"].items():
            xs = [int(e) for e in points]
            top.plot(xs, [p["events_per_s"] / base for p in points.values()], "o-", label=f"--concurrent-lumis {cl}")
        points = entry["watcher"]["1"]
        top.plot([int(e) for e in points], [p["events_per_s"] / base for p in points.values()], "s--", color="black",
                 label="a `one` module watches lumis")
        for iovs, points in entry["iovs"].items():
            bottom.plot([int(e) for e in points], [p["events_per_s"] / base for p in points.values()], "o-",
                        label=f"--concurrent-iovs {iovs} (2 lumis)")
        for axis, title in ((top, "lumi boundaries"), (bottom, "a conditions interval each lumi")):
            axis.set_xscale("log")
            axis.set_ylim(0, 1.1)
            axis.axhline(1.0, color="grey", linewidth=0.5)
            axis.set_xlabel("events per lumi")
            axis.set_ylabel("events/s ÷ without boundaries")
            axis.set_title(f"{machine}: {title}")
            axis.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=90)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench-results")
    parser.add_argument("--repeat", type=int, default=3, help="runs per point (the median is kept)")
    parser.add_argument("--quick", action="store_true", help="a few points, once: to check the script")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"cpu: {cpu_model()}, load before: {os.getloadavg()}", flush=True)
    load_before = os.getloadavg()
    results = experiment(args)
    results["load_before"] = load_before
    results["machine"] = {"cpu": cpu_model(), "cores": os.cpu_count(), "load_after": os.getloadavg()}
    (args.out / "transitions.json").write_text(json.dumps(results, indent=1) + "\n")
    plot(results, args.out / "transitions.png")
    print(f"wrote {args.out / 'transitions.json'} and {args.out / 'transitions.png'}")


if __name__ == "__main__":
    main()
