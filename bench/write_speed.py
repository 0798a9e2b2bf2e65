#!/usr/bin/env python3
"""Write speed: every lanes output that writes a TTree, an RNTuple or HDF5, at 1 and 2 threads, in paired rounds.

    .venv/bin/python bench/write_speed.py [--rounds 5] [--threads 1,2] [--inputs objects,flat] [--writers W,W]
                                          [--variant PLUGIN:OPTIONS ...] [--quick] [--anchor PATH] [--out DIR]

The inputs are bench/read_speed.py's (10,000 events, made on first use in the git-ignored --out directory): the
object-branch file (944 std::vector branches) and the flat NanoAOD file (944 leaf branches). Each writer reads every
event with lanes' `root` source and its defaults and writes it at zstd level 1 (hdf5 columns: HDF5's own deflate
filter only, off by default, so uncompressed), each with its other defaults (the parallel writers' concurrency
too). Each round runs, for each input: lanes reading alone (the `dummy` output) at each thread count, the floor,
then every writer at each thread count and, in the same round, as many 1-thread processes of it as the most
threads at once, each writing its own file (the machine's ceiling for that writer: their summed rate over one
alone). Rates are the events/s of each run's report (the job from opening its input to closing its file, start-up
not counted), medians over the rounds with min and max.

Per writer it prints its rate at each thread count, N threads over 1, the ceiling, its 1-thread rate over lanes'
1-thread read rate of the same input (the issue's target: 0.6), its rate over the floor, the file's bytes, and what
writing adds to an event at 1 thread (1/write - 1/read). The floor is build/bin/bench_root_fill: ROOT's own loop,
TTree::GetEntry of the input and TTree::Fill of a tree of the branches lanes' `root` output writes (the object-branch
input only: its objects are read and written in place; the flat file's leaf arrays become std::vectors in lanes,
which no plain ROOT loop does), at the same compression.

--writers picks writers by name (default: all of them); --variant PLUGIN:OPTIONS (repeatable) adds a writer with
options on top of that writer's, e.g. --variant root:imt=false. --quick runs one round on the test files
themselves (200 events each): a check that every writer runs, not a figure. --anchor PATH adds read_speed.py's
writers of the Fermilab framework (its RootOutputer and HDFEventOutputer against lanes' root and hdf5 blobs).

Prints the CPU model, the core count and the load average before and after; writes every run to write_speed.json
in --out. Figures are printed, never asserted: this is a measurement, not a test.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

import read_speed

FLOOR = Path(os.environ.get("LANES_BENCH_ROOT_FILL", read_speed.LANES.parent / "bench_root_fill"))
INPUTS = ["objects", "flat"]
QUICK_EVENTS = 200

# name: (the output SPEC without file=, the file's extension); each at zstd level 1 where it compresses with zstd.
WRITERS = {
    "root": ("root:compression=zstd,level=1", ".root"),
    "parallel-root": ("parallel-root:compression=zstd,level=1", ".root"),
    "rntuple": ("rntuple:compression=zstd,level=1", ".root"),
    "rntuple-parallel": ("rntuple-parallel:compression=zstd,level=1", ".root"),
    "root-events": ("root-events:compression=zstd,level=1", ".root"),
    "hdf5 blobs": ("hdf5:layout=blobs,compression=zstd,level=1", ".h5"),
    "hdf5 columns": ("hdf5:layout=columns", ".h5"),
}


def writer_specs(names, variants):
    """{name: (spec, extension)} of the writers asked for, then the variants (PLUGIN:OPTIONS on PLUGIN's writer)."""
    specs = {name: WRITERS[name] for name in names}
    for variant in variants:
        plugin, _, options = variant.partition(":")
        spec, extension = WRITERS[plugin]
        specs[f"{plugin} {options}"] = (f"{spec},{options}", extension)
    return specs


def quick_inputs(names):
    """The test files themselves, shaped as read_speed.make_inputs()'s."""
    made = {}
    if "objects" in names:
        made["objects"] = {"title": "object branches, 200 events", "files": [read_speed.VECTORS],
                           "source": f"root:file={read_speed.VECTORS},id=EventID"}
    if "flat" in names:
        made["flat"] = {"title": "flat NanoAOD, 200 events", "files": [read_speed.FLAT],
                        "source": f"root:file={read_speed.FLAT}"}
    return made


def written(name, scratch, extension, side=None):
    """The file writer `name` writes in `scratch` (the `side`th of its side-by-side processes')."""
    stem = name.replace(" ", "-").replace("=", "-") + ("" if side is None else f"-side-{side}")
    return Path(scratch) / f"{stem}{extension}"


def floor_run(made, scratch):
    """bench_root_fill writing the object-branch input: its own figures (events/s and where its time went)."""
    _, _, stdout = read_speed.run_process([FLOOR, made["files"][0], Path(scratch) / "floor.root", "EventID", "zstd", 1])
    return json.loads(stdout)


def measures_of(made, writers, threads_list, events, scratch):
    """{name: callable} of one round on one input: reading alone, the floor, every writer at each thread count and
    its side-by-side 1-thread processes."""
    source, widest = made["source"], max(threads_list)
    run = read_speed.lanes_run
    measures = {}
    for threads in threads_list:
        measures[f"read t={threads}"] = lambda threads=threads: run(source, threads, scratch, events=events)
    if "EventID" in source:
        measures["floor"] = lambda: floor_run(made, scratch)
    for name, (spec, extension) in writers.items():
        output = f"{spec},file={written(name, scratch, extension)}"
        for threads in threads_list:
            measures[f"{name} t={threads}"] = lambda output=output, threads=threads: run(source, threads, scratch, output,
                                                                                         events)
        if widest > 1:
            sides = [f"{spec},file={written(name, scratch, extension, i)}" for i in range(widest)]
            measures[f"{name} alone"] = lambda output=output: run(source, 1, scratch, output, events)
            measures[f"{name} side by side"] = lambda sides=sides: read_speed.lanes_side_by_side(source, widest, scratch,
                                                                                                   sides)
    return measures


def median(runs, key="events_per_s"):
    return read_speed.spread(runs, key)["median"]


def extra_cpu(runs, label, threads_list, events):
    """{threads: µs} the job `label` costs in CPU time an event more at each thread count than at 1."""
    return {threads: read_speed.extra_cpu_us_per_event(runs[f"{label} t={threads}"], runs[f"{label} t=1"], events)
            for threads in threads_list[1:]}


def cpu_figures(extra):
    """The printed figures of extra_cpu()'s `extra`."""
    return [f"CPU +{value:.0f} us/event at {threads}T" for threads, value in extra.items()]


def writer_row(name, runs, threads_list, scratch, extension, events):
    """One writer's figures on one input, from the rounds' `runs`."""
    rates = {threads: read_speed.spread(runs[f"{name} t={threads}"], "events_per_s") for threads in threads_list}
    row = {"writer": name, "events_per_s": rates, "bytes": written(name, scratch, extension).stat().st_size}
    one = rates[threads_list[0]]["median"] if threads_list[0] == 1 else None
    if one:
        read = median(runs["read t=1"])
        row["over_read"] = one / read
        row["write_us_per_event"] = 1e6 * (1 / one - 1 / read)
        row["scaling"] = {threads: rates[threads]["median"] / one for threads in threads_list[1:]}
        row["extra_cpu_us_per_event"] = extra_cpu(runs, name, threads_list, events)
        if "floor" in runs:
            row["over_floor"] = one / median(runs["floor"])
    if f"{name} side by side" in runs:
        row["ceiling"] = median(runs[f"{name} side by side"]) / median(runs[f"{name} alone"])
    return row


def rate(spread):
    return f"{spread['median']:7.0f} [{spread['min']:.0f}-{spread['max']:.0f}]"


def print_row(title, row):
    rates = "  ".join(f"t={threads} {rate(spread)}" for threads, spread in row["events_per_s"].items())
    figures = [f"{title:28s} {row['writer']:20s} {rates} ev/s"]
    figures += [f"{threads}T/1T {value:.2f}" for threads, value in row.get("scaling", {}).items()]
    if "ceiling" in row:
        figures.append(f"ceiling {row['ceiling']:.2f}")
    if "over_read" in row:
        figures.append(f"/read {row['over_read']:.2f} (+{row['write_us_per_event']:.0f} us/event)")
    figures += cpu_figures(row.get("extra_cpu_us_per_event", {}))
    if "over_floor" in row:
        figures.append(f"/floor {row['over_floor']:.2f}")
    figures.append(f"{row['bytes']:,} bytes")
    print("  ".join(figures), flush=True)


def input_rows(made, writers, threads_list, rounds, events, scratch):
    """Every writer's row on one input, and the reading and floor figures they are set against."""
    runs = read_speed.paired(rounds, measures_of(made, writers, threads_list, events, scratch))
    reads = {threads: read_speed.spread(runs[f"read t={threads}"], "events_per_s") for threads in threads_list}
    reads_extra_cpu = extra_cpu(runs, "read", threads_list, events)
    print(f"{made['title']:28s} {'reading (dummy)':20s} "
          + "  ".join(f"t={threads} {rate(spread)}" for threads, spread in reads.items()) + " ev/s  "
          + "  ".join(cpu_figures(reads_extra_cpu)),
          flush=True)
    result = {"input": made["title"], "reading_events_per_s": reads, "reading_extra_cpu_us_per_event": reads_extra_cpu,
              "runs": runs, "writers": []}
    if "floor" in runs:
        floor = runs["floor"]
        result["floor"] = {key: read_speed.spread(floor, key) for key in floor[0]}
        per_event = 1e6 * (statistics.median(run["fill_s"] + run["close_s"] for run in floor) / floor[0]["events"])
        result["floor"]["write_us_per_event"] = per_event
        print(f"{made['title']:28s} {'floor (ROOT loop)':20s} t=1 {rate(result['floor']['events_per_s'])} ev/s  "
              f"Fill and Close {per_event:.0f} us/event", flush=True)
    for name, (_, extension) in writers.items():
        row = writer_row(name, runs, threads_list, scratch, extension, events)
        result["writers"].append(row)
        print_row(made["title"], row)
    return result


def markdown(results, threads_list):
    """The table of docs/benchmarks.md's Writing section."""
    widest = max(threads_list)
    lines = [f"| input | writer | events/s at {' / '.join(map(str, threads_list))} threads | {widest}T ÷ 1T | "
             f"the machine's ceiling | 1T ÷ reading at 1T | 1T ÷ ROOT's fill loop | write µs/event at 1T | "
             f"CPU µs/event more at {widest}T | bytes |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]

    def more_cpu(figures):
        return f"{figures[widest]:.0f}" if widest in figures else ""

    for result in results:
        reads = " / ".join(f"{spread['median']:.0f}" for spread in result["reading_events_per_s"].values())
        lines.append(f"| {result['input']} | reading (dummy) | {reads} | | | | | | "
                     f"{more_cpu(result['reading_extra_cpu_us_per_event'])} | |")
        if "floor" in result:
            lines.append(f"| {result['input']} | ROOT's fill loop (bench_root_fill) | "
                         f"{result['floor']['events_per_s']['median']:.0f} | | | | | "
                         f"{result['floor']['write_us_per_event']:.0f} | | |")
        for row in result["writers"]:
            rates = " / ".join(f"{spread['median']:.0f}" for spread in row["events_per_s"].values())
            cells = [f"{row['scaling'][widest]:.2f}" if widest in row.get("scaling", {}) else "",
                     f"{row['ceiling']:.2f}" if "ceiling" in row else "",
                     f"{row['over_read']:.2f}" if "over_read" in row else "",
                     f"{row['over_floor']:.2f}" if "over_floor" in row else "",
                     f"{row['write_us_per_event']:.0f}" if "write_us_per_event" in row else "",
                     more_cpu(row.get("extra_cpu_us_per_event", {})), f"{row['bytes']:,}"]
            lines.append(f"| {result['input']} | {row['writer']} | {rates} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, help="paired rounds (default 5; 1 with --quick)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts, starting at 1 (default 1,2)")
    parser.add_argument("--inputs", default=",".join(INPUTS), help=f"comma-separated, of {', '.join(INPUTS)}")
    parser.add_argument("--writers", default=",".join(WRITERS), help=f"comma-separated, of {', '.join(WRITERS)}")
    parser.add_argument("--variant", action="append", default=[], help="PLUGIN:OPTIONS, a writer's variant")
    parser.add_argument("--quick", action="store_true", help="one round on the 200-event test files")
    parser.add_argument("--anchor", type=Path, help="the Fermilab framework's threaded_io_test, to compare with")
    parser.add_argument("--out", type=Path, default=read_speed.REPO / "bench-results")
    arguments = parser.parse_args()
    for option, given, known in (("--inputs", arguments.inputs.split(","), INPUTS),
                                 ("--writers", arguments.writers.split(","), WRITERS),
                                 ("--variant", [v.partition(":")[0] for v in arguments.variant], WRITERS)):
        unknown = [name for name in given if name not in known]
        if unknown:
            parser.error(f"{option}: unknown {', '.join(unknown)} (there are {', '.join(known)})")
    if any(":" not in variant for variant in arguments.variant):
        parser.error("--variant takes PLUGIN:OPTIONS, e.g. root:imt=false")
    arguments.threads = [int(t) for t in arguments.threads.split(",")]
    if arguments.threads[0] != 1:
        parser.error("--threads starts at 1: the figures are set against the 1-thread runs")
    if arguments.anchor and arguments.quick:
        parser.error("--anchor measures the 10,000-event input: leave out --quick")
    if arguments.anchor and not os.access(arguments.anchor, os.X_OK):
        parser.error(f"--anchor {arguments.anchor}: no such executable")
    if "objects" in arguments.inputs.split(",") and not os.access(FLOOR, os.X_OK):
        parser.error(f"no floor program {FLOOR}: build the bench_root_fill target")
    if arguments.rounds is None:
        arguments.rounds = 1 if arguments.quick else 5
    return arguments


def main():
    arguments = parse_arguments()
    names = arguments.inputs.split(",")
    writers = writer_specs(arguments.writers.split(","), arguments.variant)
    arguments.out.mkdir(parents=True, exist_ok=True)
    inputs = quick_inputs(names) if arguments.quick else read_speed.make_inputs(arguments.out, names)
    events = QUICK_EVENTS if arguments.quick else read_speed.EVENTS

    results = {"benchmark": "write_speed", "cpu": read_speed.cpu_model(), "cores": os.cpu_count(),
               "load_before": read_speed.load(), "rounds": arguments.rounds, "lanes": str(read_speed.LANES)}
    print(f"CPU: {results['cpu']}, {results['cores']} cores; load average before: {results['load_before']}; "
          f"{arguments.rounds} paired rounds; events/s medians [min-max]", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        results["inputs"] = [input_rows(made, writers, arguments.threads, arguments.rounds, events, scratch)
                             for made in inputs.values()]
        if arguments.anchor:
            results["anchor"] = read_speed.writer_anchor_rows(arguments.anchor, inputs, arguments.threads,
                                                              arguments.rounds, scratch)
            read_speed.print_anchor_rows(results["anchor"])
        else:
            print("anchor: not measured (no --anchor PATH_TO_threaded_io_test)", flush=True)
    results["load_after"] = read_speed.load()
    print(f"load average after: {results['load_after']}")
    print()
    print(markdown(results["inputs"], arguments.threads))
    if arguments.anchor:
        print()
        print(read_speed.anchor_markdown(results["anchor"]))
    (arguments.out / "write_speed.json").write_text(json.dumps(results, indent=2, default=str) + "\n")


if __name__ == "__main__":
    sys.exit(main())
