#!/usr/bin/env python3
"""ROOT I/O benchmarks: what each output costs, and how fast the root source reads.

    .venv/bin/python bench/root_io.py [--events 4000] [--repeats 3] [--out bench-results]

Runs the `lanes` binary (LANES_BINARY, default build/bin/lanes) on the NanoAOD
test file and writes root_io.json and root_io.png to --out:

1. Outputs: the file under repeat=200, a busy waiter on every product scaled so
   that processing costs about what the serial `root` output costs, at 1 and 2
   threads (as many lanes), for dummy, serialize, root (its default writer:
   serial at 1 thread, parallel at 2), root writer=serial, root imt=true,
   parallel-root, rntuple and rntuple-parallel (the parallel ones with
   concurrency = threads); events/s and the ratio to dummy (the framework's own
   limit). The same without waiters shows each output's own ceiling.
2. Parallel scaling: each parallel output against its serial counterpart at 2
   threads without waiters, for zstd (the default, level 5), zstd level 1, lz4
   and no compression, with the bytes each writes.
3. Framework cost per product: repeat + dummy, no waiters.

How fast the sources read files, against ROOT's rootreadspeed, is
bench/read_speed.py's.

Every figure is the best of --repeats runs. Figures are printed and stored,
never asserted: this is a measurement, not a test.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LANES = Path(os.environ.get("LANES_BINARY", REPO / "build" / "bin" / "lanes"))
NANOAOD = REPO / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
OUTPUTS = ["dummy", "serialize", "root", "root writer=serial", "root imt=true", "parallel-root", "rntuple",
           "rntuple-parallel"]


def run_lanes(args, scratch):
    """Runs `lanes run ARGS`; returns its report."""
    report = Path(scratch) / "report.json"
    completed = subprocess.run([str(LANES), "run", *args, "--report", str(report)], capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"lanes {' '.join(args)} failed: {completed.stderr.strip()}")
    return json.loads(report.read_text())


def best(repeats, measure):
    """The run with the highest events/s of `repeats` calls of measure() -> dict."""
    return max((measure() for _ in range(repeats)), key=lambda r: r["events_per_s"])


def output_spec(name, threads, scratch):
    plugin, _, extra = name.partition(" ")
    options = [] if plugin in ("dummy", "serialize") else [f"file={scratch}/out-{plugin}.root"]
    if plugin in ("parallel-root", "rntuple-parallel"):
        options.append(f"concurrency={threads}")
    options.extend(extra.split())
    return plugin + (":" + ",".join(options) if options else "")


def output_run(name, threads, events, scale, scratch):
    args = ["--source", f"root:file={NANOAOD},repeat=200", "-n", str(events), "-t", str(threads),
            "--output", output_spec(name, threads, scratch)]
    if scale:
        args += ["--waiter", f"busy:scale={scale:.6g}"]
    report = run_lanes(args, scratch)
    output = report["modules"][-1]
    return {"output": name, "threads": threads, "events_per_s": report["events_per_s"],
            "output_s_per_event": output["total_s"] / report["events"], "cpu_efficiency": report["cpu_efficiency"],
            "details": output.get("details")}


def calibrate(events, repeats, scratch):
    """The busy scale (s/byte) that makes processing cost what the `root` output does."""
    serial = best(repeats, lambda: output_run("root", 1, events, 0, scratch))
    probe_scale = 1e-9
    report = run_lanes(["--source", f"root:file={NANOAOD},repeat=200", "-n", str(events), "-t", "1",
                           "--waiter", f"busy:scale={probe_scale}", "--output", "dummy"], scratch)
    waiters = sum(m["total_s"] for m in report["modules"] if m["plugin"] == "busy") / report["events"]
    return probe_scale * serial["output_s_per_event"] / waiters, serial["output_s_per_event"]


def outputs_matrix(events, repeats, scale, scratch):
    rows = []
    for threads in (1, 2):
        for name in OUTPUTS:
            row = best(repeats, lambda: output_run(name, threads, events, scale, scratch))
            rows.append(row)
            print(f"  {'waiters' if scale else 'no waiters'} t={threads} {name:18s} {row['events_per_s']:9.1f} ev/s",
                  file=sys.stderr)
    for row in rows:
        dummy = next(r for r in rows if r["threads"] == row["threads"] and r["output"] == "dummy")
        row["ratio_to_dummy"] = row["events_per_s"] / dummy["events_per_s"]
    return rows


PAIRS = [("root writer=serial", "parallel-root"), ("rntuple", "rntuple-parallel")]
COMPRESSIONS = ["compression=zstd", "compression=zstd,level=1", "compression=lz4", "compression=zlib,level=0"]


def parallel_scaling(events, repeats, scratch):
    """Each parallel output against its serial counterpart, output-bound (no waiters, 2 threads), for several
    compressions: the repeat source cycles 200 events, so a serial output compresses 25 copies of every event in a
    row, while parallel buffers see them shuffled; how much that costs depends on the compressor."""
    rows = []
    for serial, parallel in PAIRS:
        for compression in COMPRESSIONS:
            def measure(name):
                row = output_run(f"{name} {compression}", 2, events, 0, scratch)
                row["bytes"] = (row["details"] or {}).get("bytes")
                return row
            # Interleaved, so that a slow spell of the machine hits both alike.
            runs = [(measure(serial), measure(parallel)) for _ in range(repeats)]
            ours = [max((r[i] for r in runs), key=lambda r: r["events_per_s"]) for i in (0, 1)]
            ratio = ours[1]["events_per_s"] / ours[0]["events_per_s"]
            rows.append({"serial": serial, "parallel": parallel, "compression": compression,
                         "serial_events_per_s": ours[0]["events_per_s"], "parallel_events_per_s": ours[1]["events_per_s"],
                         "ratio": ratio, "serial_bytes": ours[0]["bytes"], "parallel_bytes": ours[1]["bytes"]})
            print(f"  t=2 no waiters {parallel:16s} {compression:26s} {ours[1]['events_per_s']:7.0f} vs "
                  f"{ours[0]['events_per_s']:7.0f} ev/s ({ratio:.2f}x)", file=sys.stderr)
    return rows


def per_product(repeats, scratch):
    products = 944  # the NanoAOD file's branches less run, luminosityBlock, event
    rows = []
    for threads in (1, 2):
        def measure():
            report = run_lanes(["--source", f"root:file={NANOAOD},repeat=200", "-n", "50000", "-t", str(threads),
                                   "--output", "dummy"], scratch)
            return {"threads": threads, "events_per_s": report["events_per_s"],
                    "ns_per_product": 1e9 / report["events_per_s"] / products}
        rows.append(best(repeats, measure))
    return rows


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    for axis, key, title in ((axes[0], "with_waiters", "processing ≈ root output cost"),
                             (axes[1], "without_waiters", "no processing: each output's ceiling")):
        rows = results["outputs"][key]
        width = 0.38
        for i, threads in enumerate((1, 2)):
            values = [next(r["events_per_s"] for r in rows if r["threads"] == threads and r["output"] == o)
                      for o in OUTPUTS]
            positions = [x + (i - 0.5) * width for x in range(len(OUTPUTS))]
            bars = axis.bar(positions, values, width, label=f"{threads} thread{'s' if threads > 1 else ''}")
            for bar, o in zip(bars, OUTPUTS):
                ratio = next(r["ratio_to_dummy"] for r in rows if r["threads"] == threads and r["output"] == o)
                axis.annotate(f"{ratio:.2f}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                              ha="center", va="bottom", fontsize=7)
        axis.set_xticks(range(len(OUTPUTS)), OUTPUTS, rotation=30, ha="right")
        axis.set_ylabel("events / s")
        if key == "without_waiters":
            axis.set_yscale("log")  # dummy is an order of magnitude above every real output
        axis.set_title(f"NanoAOD, repeat=200: {title}\n(labels: ratio to dummy)", fontsize=10)
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=4000, help="events of the runs with waiters (5x without)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="bench-results")
    parser.add_argument("--parts", default="outputs,scaling,per-product",
                        help="comma-separated: outputs, scaling, per-product (the others are kept from an earlier run)")
    arguments = parser.parse_args()
    out = Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    parts = set(arguments.parts.split(","))
    previous = out / "root_io.json"
    results = json.loads(previous.read_text()) if previous.exists() else {}
    results.update({"benchmark": "root_io", "machine_cores": os.cpu_count()})
    with tempfile.TemporaryDirectory() as scratch:
        if "outputs" in parts:
            scale, root_cost = calibrate(arguments.events, arguments.repeats, scratch)
            print(f"calibration: root output {root_cost * 1e6:.0f} us/event -> busy scale {scale:.3g} s/byte",
                  file=sys.stderr)
            results.update({
                "events": arguments.events,
                "busy_scale_s_per_byte": scale,
                "root_output_s_per_event": root_cost,
                # Without waiters a run is short: more events, so that clusters
                # and merges happen during the job as they would in a long one.
                "outputs": {"with_waiters": outputs_matrix(arguments.events, arguments.repeats, scale, scratch),
                            "without_waiters": outputs_matrix(5 * arguments.events, arguments.repeats, 0, scratch)},
            })
        if "scaling" in parts:
            results["parallel_scaling"] = parallel_scaling(5 * arguments.events, arguments.repeats, scratch)
        if "per-product" in parts:
            results["per_product"] = per_product(arguments.repeats, scratch)
    (out / "root_io.json").write_text(json.dumps(results, indent=2) + "\n")
    if "outputs" in results:
        plot(results, out / "root_io.png")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
