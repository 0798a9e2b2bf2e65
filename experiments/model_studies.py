#!/usr/bin/env python3
"""Two CMS studies at their scale, by prediction: each menu measured on 2 threads here, then `lanes model` of it.

1. Heterogeneous scheduling (the Run-3 HLT on a node of 2 x 64-core AMD EPYC, 256 hardware threads, with two GPUs;
   Bocci, Jones, Kortelainen, EPJ Web Conf. 295 (2024) 11017): examples/hlt-like.toml CPU-only (--accel none) and on
   the emulated device with each of the five strategies, predicted at 16 to 256 threads per process with
   processes x threads = 256, events in flight = 3/4 of the threads, two devices shared by the processes.
2. Multi-threaded output (Riley, Jones, EPJ Web Conf. 214 (2019) 02016): a RECO-like job (NanoAOD events, 6 ms of
   busy work each, every product written) with serial output (root, a `one` module) and parallel output
   (parallel-root, concurrency=4), predicted at 1 to 256 threads: where each caps the rate.

    .venv/bin/python experiments/model_studies.py [--out docs/images] [--seconds 4]

Writes OUT/model_studies.json and OUT/model_studies.png. Reads only the JSON that lanes writes.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HLT = REPO / "examples" / "hlt-like.toml"
STRATEGIES = ["sync-single", "sync-multi", "external-worker", "external-worker-d2h", "waiting-pool"]
NODE_THREADS = 256
THREADS_PER_PROCESS = [16, 32, 64, 128, 256]
OUTPUT_THREADS = [1, 2, 4, 8, 16, 32, 64, 128, 256]
RECO_LIKE = ["--source", f"root:file={REPO / 'data' / 'files' / 'nanoAOD_2015_CMS_Open_Data_ttbar.root'},repeat=200",
             "--waiter", "busy:scale=2e-6"]
OUTPUTS = {"root (serial)": "root:file={},writer=serial",
           "parallel-root (concurrency 4)": "parallel-root:file={},concurrency=4"}
PAPER = {
    "single stream vs CPU only": "+15% to +45%, shrinking as the threads per process grow",
    "multiple streams vs CPU only": "+7% to +20%",
    "waiting pool": "the best at every thread count",
    "serial output": "the primary impediment to scaling beyond 8 cores",
}


def lanes(binary, words):
    done = subprocess.run([binary, *words], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"model_studies: lanes {' '.join(words)} failed: {done.stderr.strip()}")


def measure(binary, job, events, path):
    lanes(binary, ["run", *job, "-t", "2", "-n", str(events), "--report", str(path)])
    return json.loads(path.read_text())


def predict(binary, report, scratch, *options):
    path = Path(scratch) / "prediction.json"
    lanes(binary, ["model", str(report), *map(str, options), "--report", str(path)])
    predicted = json.loads(path.read_text())
    busiest = predicted["model"]["bottleneck"]
    return {"events_per_s": predicted["events_per_s"], "cpu_efficiency": predicted["cpu_efficiency"],
            "busiest": busiest and {k: busiest[k] for k in ("name", "kind", "utilization", "held", "saturated")}}


def sized(binary, job, seconds, scratch, name):
    """The 2-thread report of a run that lasts about `seconds`."""
    probe = measure(binary, job, 40, Path(scratch) / f"{name}-probe.json")
    events = max(40, int(probe["events_per_s"] * seconds))
    return Path(scratch) / f"{name}.json", measure(binary, job, events, Path(scratch) / f"{name}.json")


def heterogeneous(binary, seconds, events, scratch):
    jobs = {"cpu-only": ["--accel", "none"]}
    jobs.update({s: ["--accel", "emulated", "--accel-strategy", s] for s in STRATEGIES})
    result = {}
    for name, accel in jobs.items():
        path, report = sized(binary, ["--menu", str(HLT), *accel], seconds, scratch, name)
        points = []
        for threads in THREADS_PER_PROCESS:
            processes = NODE_THREADS // threads
            predicted = predict(binary, path, scratch, "-t", threads, "-l", 3 * threads // 4, "-p", processes,
                                "--cores", NODE_THREADS, "-n", events, *(["--devices", 2] if name != "cpu-only" else []))
            points.append({"threads": threads, "processes": processes, **predicted})
        result[name] = {"measured_events_per_s": report["events_per_s"], "points": points}
        print(f"  {name}: measured {report['events_per_s']:.1f}/s at 2 threads; predicted " +
              ", ".join(f"{p['processes']}x{p['threads']} {p['events_per_s']:.0f}/s" for p in points), flush=True)
    for name in STRATEGIES:
        for point, cpu in zip(result[name]["points"], result["cpu-only"]["points"]):
            point["relative_to_cpu_only"] = point["events_per_s"] / cpu["events_per_s"]
    return result


def output_caps(binary, seconds, events, scratch):
    result = {}
    for name, spec in OUTPUTS.items():
        job = RECO_LIKE + ["--output", spec.format(Path(scratch) / "out.root")]
        path, report = sized(binary, job, seconds, scratch, name.split()[0])
        points = [{"threads": t, **predict(binary, path, scratch, "-t", t, "-n", events)} for t in OUTPUT_THREADS]
        saturated = next((p for p in points if p["busiest"] and p["busiest"]["saturated"]), None)
        result[name] = {"measured_events_per_s": report["events_per_s"], "points": points,
                        "saturates_at": saturated and {"threads": saturated["threads"], **saturated["busiest"]},
                        "most_events_per_s": max(p["events_per_s"] for p in points)}
        print(f"  {name}: measured {report['events_per_s']:.1f}/s at 2 threads; predicted " +
              ", ".join(f"{p['threads']}: {p['events_per_s']:.0f}/s" for p in points) +
              (f"; saturates at {saturated['threads']} threads ({saturated['busiest']['name']})" if saturated else ""),
              flush=True)
    return result


def plot(result, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.4))
    for name in STRATEGIES:
        points = result["heterogeneous"][name]["points"]
        left.plot([p["threads"] for p in points], [p["relative_to_cpu_only"] for p in points], marker="o", label=name)
    left.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    left.set_xscale("log", base=2)
    left.set_xticks(THREADS_PER_PROCESS, [f"{NODE_THREADS // t}x{t}" for t in THREADS_PER_PROCESS])
    left.set_xlabel("processes x threads per process (256 threads, 3/4 of them events in flight, 2 devices)")
    left.set_ylabel("predicted events/s relative to CPU only")
    left.set_title("hlt-like, predicted from 2 threads on the emulated device", fontsize=10)
    left.legend(fontsize=8)
    for name, study in result["output"].items():
        points = study["points"]
        right.plot([p["threads"] for p in points], [p["events_per_s"] for p in points], marker="o", label=name)
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xticks(OUTPUT_THREADS, [str(t) for t in OUTPUT_THREADS])
    right.set_xlabel("threads (one process, a core each)")
    right.set_ylabel("predicted events/s")
    right.set_title("RECO-like job: serial against parallel output", fontsize=10)
    right.legend(fontsize=8)
    figure.suptitle(f"lanes model, from runs on {result['machine']} (load {result['load'][0]:.1f}-{result['load'][1]:.1f})",
                    fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "images"))
    parser.add_argument("--binary", default=os.environ.get("LANES_BINARY", str(REPO / "build" / "bin" / "lanes")))
    parser.add_argument("--seconds", type=float, default=4.0, help="about how long each measured run takes")
    parser.add_argument("--events", type=int, default=20000, help="events of each prediction")
    options = parser.parse_args()
    before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        result = {"heterogeneous": heterogeneous(options.binary, options.seconds, options.events, scratch),
                  "output": output_caps(options.binary, options.seconds, options.events, scratch)}
    result["load"] = [before, os.getloadavg()[0]]
    result["machine"] = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                              if line.startswith("model name")), "unknown CPU")
    result["paper"] = PAPER
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "model_studies.json").write_text(json.dumps(result, indent=1) + "\n")
    plot(result, out / "model_studies.png")
    print(f"wrote {out / 'model_studies.json'} and {out / 'model_studies.png'}")


if __name__ == "__main__":
    main()
