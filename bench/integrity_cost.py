#!/usr/bin/env python3
"""What checking files costs: paired write and read-back rounds of the NanoAOD file cached in memory.

    .venv/bin/python bench/integrity_cost.py --before OLD_LANES [--rounds 5] [--events 4000] [--cases hdf5,...]
    .venv/bin/python bench/integrity_cost.py --settings [--rounds 5] [--events 4000] [--cases root,...]

--before: the same jobs by two builds, OLD_LANES (say, main's `lanes` copied aside) and LANES_BINARY (default
build/bin/lanes), one after the other in each round, each build reading back the file it wrote: what the hdf5
checksums (Fletcher32 on every dataset, the 1.10 file format) and the codec's version 2 frames cost. The blob cases
frame every product (compress=product: ~950 frames an event), where a frame's cost shows most.

--settings: one build, the ROOT outputs' compression settings side by side (the TTree and RNTuple rows of
docs/faults.md: what each setting checks, and what it costs), and the hdf5 output's deflate=0 and 1.

Each job runs on one thread (`-t 1`): writing --events events from `root:file=NANOAOD,repeat=200` (the file cached
in memory, so the source costs little), then reading the file back with its source into a `dummy` output. Each
round records, per job, the event rate (wall clock) and the CPU time per event (user + system, from the report: less
sensitive to other load on the machine than the wall clock), and the load average before the round. Printed: the
median, min and max over the rounds, and the ratio of the medians to the first entry's. Figures are printed and
written to --out/integrity_cost.json, never asserted: this is a measurement, not a test.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

import read_speed

REPO = Path(__file__).resolve().parents[1]
LANES = Path(os.environ.get("LANES_BINARY", REPO / "build" / "bin" / "lanes"))
NANOAOD = REPO / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"

# --before: an output SPEC (without file=) each, and its source.
BUILD_CASES = {
    "hdf5 columns": ("hdf5:layout=columns", "hdf5"),
    "hdf5 blobs": ("hdf5:layout=blobs", "hdf5"),
    "hdf5 blobs zstd product": ("hdf5:layout=blobs,compression=zstd,compress=product", "hdf5"),
    "root-events lz4 product": ("root-events:compression=lz4,compress=product", "root-events"),
    "pds none product": ("pds:compression=none,compress=product", "pds"),
}
# --settings: ROOT's compression settings of the TTree and RNTuple outputs, and HDF5's deflate= (whose zlib stream
# ends in an Adler-32, which sees what Fletcher32 does not: a 16-bit word turned from 0x0000 to 0xFFFF or back).
SETTING_CASES = {
    **{f"{plugin} {name}": (f"{plugin}:{options}", plugin)
       for plugin in ("root", "rntuple")
       for name, options in (("zstd-5", "compression=zstd,level=5"), ("lz4-4", "compression=lz4,level=4"),
                             ("zlib-1", "compression=zlib,level=1"), ("zlib-5", "compression=zlib,level=5"),
                             ("none", "level=0"))},
    **{f"hdf5-{layout} deflate={level}": (f"hdf5:layout={layout},deflate={level}", "hdf5")
       for layout in ("columns", "blobs") for level in (0, 1)},
}


def run(binary, args, directory):
    report = Path(directory) / "report.json"
    report.unlink(missing_ok=True)
    done = subprocess.run([str(binary), "run", "-t", "1", *map(str, args), "--report", str(report)],
                          capture_output=True, text=True, cwd=directory, stdin=subprocess.DEVNULL, timeout=1200)
    if done.returncode != 0:
        raise RuntimeError(f"{binary} run {' '.join(map(str, args))} failed: {done.stderr.strip()}")
    report = json.loads(report.read_text())
    return {"events_per_s": report["events_per_s"],
            "cpu_us_per_event": (report["cpu_user_s"] + report["cpu_sys_s"]) / report["events"] * 1e6}


def with_file(spec, path):
    plugin, _, options = spec.partition(":")
    return f"{plugin}:file={path}" + (f",{options}" if options else "")


def job(binary, output, source, events, directory, tag):
    """Writes and reads back one file; returns {write/read: figures, bytes_per_event}."""
    path = Path(directory) / f"{tag}.{'h5' if source == 'hdf5' else 'pds' if source == 'pds' else 'root'}"
    path.unlink(missing_ok=True)
    written = run(binary, ["-n", events, "--source", f"root:file={NANOAOD},repeat=200", "--output",
                           with_file(output, path)], directory)
    read = run(binary, ["-n", 0, "--source", with_file(source, path), "--output", "dummy"], directory)
    return {"write": written, "read": read, "bytes_per_event": path.stat().st_size / int(events)}


def summary(rounds, entries):
    """Per entry and figure: median, min, max over the rounds, and the median's ratio to the first entry's."""
    first = entries[0]
    result = {}
    for entry in entries:
        figures = {}
        for way in ("write", "read"):
            for figure in ("events_per_s", "cpu_us_per_event"):
                values = [r[entry][way][figure] for r in rounds]
                base = statistics.median(r[first][way][figure] for r in rounds)
                figures[f"{way} {figure}"] = {"median": statistics.median(values), "min": min(values),
                                              "max": max(values), "ratio": statistics.median(values) / base}
        figures["bytes_per_event"] = rounds[-1][entry]["bytes_per_event"]
        result[entry] = figures
    return result


def table(name, result):
    lines = [f"## {name}", "| entry | write ev/s (min-max) | write CPU us/ev | read ev/s (min-max) | read CPU us/ev | "
             "bytes/ev |", "| --- | --- | --- | --- | --- | --- |"]
    for entry, f in result.items():
        cells = []
        for way in ("write", "read"):
            rate, cpu = f[f"{way} events_per_s"], f[f"{way} cpu_us_per_event"]
            cells.append(f"{rate['median']:.0f} ({rate['min']:.0f}-{rate['max']:.0f}) x{rate['ratio']:.3f}")
            cells.append(f"{cpu['median']:.0f} ({cpu['min']:.0f}-{cpu['max']:.0f}) x{cpu['ratio']:.3f}")
        lines.append(f"| {entry} | " + " | ".join(cells) + f" | {f['bytes_per_event']:.0f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--before", type=Path, help="the lanes binary to compare LANES_BINARY with")
    mode.add_argument("--settings", action="store_true", help="compare the ROOT outputs' compression settings")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", default="4000")
    parser.add_argument("--cases", help="a comma-separated subset of the cases (by name prefix)")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results")
    options = parser.parse_args()
    cases = SETTING_CASES if options.settings else BUILD_CASES
    if options.cases:
        cases = {k: v for k, v in cases.items() if any(k.startswith(p) for p in options.cases.split(","))}
    results = {}
    with tempfile.TemporaryDirectory(prefix="lanes-integrity-") as directory:
        if options.before:
            groups = {name: [("before", options.before, *case), ("after", LANES, *case)]
                      for name, case in cases.items()}
        else:  # the settings of one output side by side
            groups = {}
            for name, case in cases.items():
                groups.setdefault(name.split()[0], []).append((name, LANES, *case))
        for name, entries in groups.items():
            rounds = []
            for number in range(options.rounds):
                entry = {"load_average": os.getloadavg()[0]}
                # Alternate which goes first, so that neither always runs on a warmer page cache.
                order = entries if number % 2 == 0 else entries[::-1]
                for tag, binary, output, source in order:
                    entry[tag] = job(binary, output, source, options.events, directory, tag.replace(" ", "-"))
                rounds.append(entry)
                print(json.dumps({"case": name, "round": number, **entry}), flush=True)
            results[name] = {"rounds": rounds, "summary": summary(rounds, [e[0] for e in entries]),
                             "load_average": [r["load_average"] for r in rounds]}
            print(table(name, results[name]["summary"]))
            print(f"load average before each round: {results[name]['load_average']}", flush=True)
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "integrity_cost.json").write_text(json.dumps(
        {"mode": "settings" if options.settings else f"before={options.before}", "events": options.events,
         "cpu": read_speed.cpu_model(), "results": results}, indent=1))


if __name__ == "__main__":
    main()
