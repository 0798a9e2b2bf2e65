#!/usr/bin/env python3
"""Read speed: lanes' `root` source against ROOT's rootreadspeed, whole processes in paired rounds.

    .venv/bin/python bench/read_speed.py [--rounds 5] [--threads 1,2] [--inputs flat,objects,files]
                                         [--sweep] [--anchor PATH_TO_threaded_io_test] [--out bench-results]

Three inputs of 10,000 events, made on first use in the git-ignored --out directory:
  flat     flat NanoAOD (944 leaf branches): data/files/nanoAOD_2015_CMS_Open_Data_ttbar.root merged 50
           times into one file with ROOT's TFileMerger;
  objects  object branches (std::vector<T>): data/files/nanoAOD_2015_ttbar_vector_branches.root merged the
           same way, read with id=EventID;
  files    the flat file listed 50 times: root:files=LIST against rootreadspeed --files F F ...
Every branch is read, by lanes with its defaults into the `dummy` output. Each round runs lanes, then
rootreadspeed, on the same input at the same thread count (A B A B ...), so that a slow spell of the machine
hits both. The figures are the whole-process wall times (start-up and file opening included, as a user sees
them): medians over the rounds with min and max, and the ratio of the medians, rootreadspeed's time over lanes'
(above 1: lanes reads faster). At 1 thread rootreadspeed runs its plain loop, at N its --threads N.

Lanes at N threads against its own 1-thread run is printed twice: by whole-process time, which counts the
start-up (about half a second of loading ROOT, the same at any thread count) once, and by the event rate of its
report, which is the scaling of the reading itself. Beside it, what the machine allows: in the same rounds, N
1-thread lanes processes reading the input at once, their summed event rate over one alone. Nothing is shared
between them, so what they lose (cores that share a cache, memory bandwidth, a virtual machine's neighbours)
bounds any N-thread job on this machine.

--sweep also runs each option setting a user could make (handles=, readahead=, cache=, chunk=), one at a time
on top of the defaults, in the same rounds as a run with the defaults, and prints each one's rate over the
defaults' and how far the best of them is from the defaults.

--anchor PATH adds the Fermilab I/O testing framework (Dr15Jones/root_serialization's threaded_io_test): its
ReplicatedRootSource against root:...,handles=lane on the object-branch file (the anchor cannot read the flat
one), as many lanes as threads, each program's own events/s (lanes' from its run report, the anchor's from its
summary, whose event count is checked: it can exit 0 after an exception), in paired rounds as above; and its
event-blob readers (SharedRootEventSource, SharedRootBatchEventsSource, SharedPDSSource) against lanes' root-events
and pds sources, each program reading the file it wrote itself (made on first use in --out) from the object-branch
input with zstd level 1 and ROOT's serialisation; and two writers, each program reading the object-branch input with
its TTree source: its RootOutputer against lanes' root output, its HDFEventOutputer (a blob per event) against
lanes' hdf5 output in its blobs layout (a blob per product and batch of events), both at zstd level 1.

Prints the CPU model, the core count and the load average before and after; writes every run to
read_speed.json in --out. Figures are printed, never asserted: this is a measurement, not a test.
"""

import argparse
import functools
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LANES = Path(os.environ.get("LANES_BINARY", REPO / "build" / "bin" / "lanes"))
FLAT = REPO / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
VECTORS = REPO / "data" / "files" / "nanoAOD_2015_ttbar_vector_branches.root"
ROOTREADSPEED = next((REPO / ".venv" / "lib").glob("python3*/site-packages/ROOT/bin/rootreadspeed"))
EVENTS = 10_000
COPIES = 50
INPUTS = ["flat", "objects", "files"]

# The option settings --sweep tries, each alone on top of the defaults.
SWEEP = ["handles=shared", "handles=lane", "readahead=1", "readahead=4", "readahead=16", "readahead=64", "readahead=256",
         "cache=0", "cache=200000000", "chunk=100", "chunk=1000"]


def merged(source, out):
    """`source` merged COPIES times into one file in `out`, made on first use (the ROOT wheel has no hadd)."""
    path = out / f"{source.stem}_x{COPIES}.root"
    if path.exists():
        return path
    import ROOT

    partial = path.with_name(path.name + ".partial")
    merger = ROOT.TFileMerger(False)
    if not merger.OutputFile(str(partial), "RECREATE"):
        sys.exit(f"cannot create {partial}")
    for _ in range(COPIES):
        if not merger.AddFile(str(source), False):
            sys.exit(f"cannot add {source} to the merge")
    if not merger.Merge():
        sys.exit(f"merging into {partial} failed")
    partial.rename(path)
    return path


def make_inputs(out, names):
    """{name: {title, source (lanes' spec), files (rootreadspeed's)}} of the inputs asked for."""
    made = {}
    if "flat" in names:
        flat = merged(FLAT, out)
        made["flat"] = {"title": "flat NanoAOD, one file", "source": f"root:file={flat}", "files": [flat]}
    if "objects" in names:
        vectors = merged(VECTORS, out)
        made["objects"] = {"title": "object branches, one file", "source": f"root:file={vectors},id=EventID",
                           "files": [vectors]}
    if "files" in names:
        listing = out / f"flat_listed_{COPIES}_times.txt"
        listing.write_text(f"{FLAT}\n" * COPIES)
        made["files"] = {"title": f"flat NanoAOD, {COPIES} files", "source": f"root:files={listing}",
                         "files": [FLAT] * COPIES}
    return made


def run_process(command, env=None):
    """Runs `command` (with `env` added to this environment) to its end: (whole-process wall s, CPU s, stdout).
    Exits naming it if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    completed = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                               env={**os.environ, **env} if env else None)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed ({completed.returncode}): {completed.stderr.strip()[-2000:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, completed.stdout


def lanes_command(source, threads, report, output="dummy", binary=LANES):
    """`binary` reading every event of `source` into `output`, writing its run report to `report`."""
    return [str(c) for c in (binary, "run", "--source", source, "-n", "0", "-t", threads, "--output", output,
                             "--report", report)]


def lanes_run(source, threads, scratch, output="dummy", events=EVENTS):
    """lanes reading every event of `source` (`events` of them) into `output`: wall and CPU time, and its report's
    events/s."""
    report = Path(scratch) / "report.json"
    wall, cpu, _ = run_process(lanes_command(source, threads, report, output))
    summary = json.loads(report.read_text())
    if summary["events"] != events:
        sys.exit(f"lanes read {summary['events']} events of {source}, not {events}")
    return {"wall_s": wall, "cpu_s": cpu, "events_per_s": summary["events_per_s"],
            "peak_rss_bytes": summary["peak_rss_bytes"]}


def lanes_side_by_side(source, processes, scratch, outputs=None):
    """`processes` 1-thread lanes runs of `source` at once, each into its own of `outputs` (default: dummy): their
    summed events/s (each from its report)."""
    reports = [Path(scratch) / f"side-{i}.json" for i in range(processes)]
    outputs = outputs or ["dummy"] * processes
    running = [subprocess.Popen(lanes_command(source, 1, report, output), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True) for report, output in zip(reports, outputs)]
    for process in running:
        _, stderr = process.communicate()
        if process.returncode != 0:
            sys.exit(f"lanes run --source {source} -t 1 failed ({process.returncode}): {stderr.strip()[-2000:]}")
    return {"events_per_s": sum(json.loads(report.read_text())["events_per_s"] for report in reports)}


def rootreadspeed_run(files, threads):
    command = [ROOTREADSPEED, "--files", *files, "--trees", "Events", "--all-branches"]
    if threads > 1:
        command += ["--threads", threads]
    wall, cpu, _ = run_process(command)
    return {"wall_s": wall, "cpu_s": cpu}


def anchor_run(anchor, path, threads, source="ReplicatedRootSource", outputer="DummyOutputer", events=EVENTS):
    """threaded_io_test's `source` reading `events` events of `path` (None: a source of no file, as EmptySource)
    into `outputer`."""
    spec = f"{source}={path}" if path is not None else source
    wall, cpu, stdout = run_process([anchor, "-s", spec, "-t", threads, "-l", threads, "-n", events, "-o", outputer])
    micros = re.search(r"^Event processing time: (\d+)us$", stdout, re.MULTILINE)
    done = re.search(r"^number events: (\d+)$", stdout, re.MULTILINE)
    if not micros or not done or int(done.group(1)) != events:
        sys.exit(f"{anchor} did not process {events} events of {spec}: {stdout.strip()[-2000:]}")
    return {"wall_s": wall, "cpu_s": cpu, "events_per_s": events / (int(micros.group(1)) * 1e-6)}


def spread(runs, key):
    values = [run[key] for run in runs]
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def extra_cpu_us_per_event(runs, single_runs, events=EVENTS):
    """The CPU time an event of `runs` costs more than of the same job's 1-thread `single_runs` (medians): what the
    threads spend beyond the work (spinning, the kernel, slower code on two cores at once). Both start up alike, so
    the start-up's CPU time cancels."""
    return 1e6 * (spread(runs, "cpu_s")["median"] - spread(single_runs, "cpu_s")["median"]) / events


def paired(rounds, measures):
    """Runs each of `measures` (name -> callable) once per round, in order, `rounds` times: {name: [runs]}."""
    runs = {name: [] for name in measures}
    for _ in range(rounds):
        for name, measure in measures.items():
            runs[name].append(measure())
    return runs


def seconds(s):
    return f"{s['median']:6.2f} s [{s['min']:.2f}-{s['max']:.2f}]"


def rootreadspeed_rows(inputs, threads_list, rounds, scratch):
    rows = []
    for name, made in inputs.items():
        for threads in threads_list:
            measures = {"lanes": lambda: lanes_run(made["source"], threads, scratch),
                        "rootreadspeed": lambda: rootreadspeed_run(made["files"], threads)}
            if threads > 1:  # the machine's ceiling: a 1-thread process alone, then `threads` of them at once
                measures["alone"] = lambda: lanes_run(made["source"], 1, scratch)
                measures["side_by_side"] = lambda: lanes_side_by_side(made["source"], threads, scratch)
            runs = paired(rounds, measures)
            ours, theirs = spread(runs["lanes"], "wall_s"), spread(runs["rootreadspeed"], "wall_s")
            row = {"input": name, "title": made["title"], "threads": threads, "lanes_wall_s": ours,
                   "rootreadspeed_wall_s": theirs, "ratio": theirs["median"] / ours["median"], "runs": runs}
            rows.append(row)
            print(f"{made['title']:28s} t={threads}  lanes {seconds(ours)}  rootreadspeed {seconds(theirs)}  "
                  f"rootreadspeed/lanes {row['ratio']:.2f}", flush=True)
        single = next((r for r in rows if r["input"] == name and r["threads"] == 1), None)
        for row in rows:
            if single and row["input"] == name and row["threads"] > 1:
                scale(row, single)
                print(f"{made['title']:28s} lanes at {row['threads']} threads: {row['lanes_scaling']:.2f}x its "
                      f"1-thread rate by whole-process time, {row['lanes_rate_scaling']:.2f}x by event rate; "
                      f"{row['threads']} 1-thread processes at once: {row['machine_ceiling']:.2f}x one alone "
                      f"(the machine's ceiling); CPU time +{row['lanes_extra_cpu_us_per_event']:.0f} us/event",
                      flush=True)
    return rows


def scale(row, single):
    """Adds to an N-thread `row` lanes' scaling over its 1-thread `single` row, and the machine's ceiling."""
    runs = row["runs"]
    row["lanes_scaling"] = single["lanes_wall_s"]["median"] / row["lanes_wall_s"]["median"]
    row["lanes_rate_scaling"] = (spread(runs["lanes"], "events_per_s")["median"] /
                                 spread(single["runs"]["lanes"], "events_per_s")["median"])
    row["machine_ceiling"] = (spread(runs["side_by_side"], "events_per_s")["median"] /
                              spread(runs["alone"], "events_per_s")["median"])
    row["lanes_extra_cpu_us_per_event"] = extra_cpu_us_per_event(runs["lanes"], single["runs"]["lanes"])


def sweep_rows(inputs, threads_list, rounds, scratch):
    rows = []
    for name, made in inputs.items():
        for threads in threads_list:
            measures = {"defaults": lambda: lanes_run(made["source"], threads, scratch)}
            for setting in SWEEP:
                measures[setting] = lambda setting=setting: lanes_run(f"{made['source']},{setting}", threads, scratch)
            runs = paired(rounds, measures)
            defaults = spread(runs["defaults"], "wall_s")
            settings = []
            for setting in SWEEP:
                times = spread(runs[setting], "wall_s")
                settings.append({"setting": setting, "wall_s": times, "rate_over_defaults": defaults["median"] /
                                 times["median"]})
            best = max(settings, key=lambda s: s["rate_over_defaults"])
            rows.append({"input": name, "threads": threads, "defaults_wall_s": defaults, "settings": settings,
                         "best": best["setting"], "best_over_defaults": best["rate_over_defaults"], "runs": runs})
            print(f"sweep {made['title']} t={threads}: defaults {seconds(defaults)}", flush=True)
            for setting in settings:
                print(f"  {setting['setting']:18s} {seconds(setting['wall_s'])}  rate {setting['rate_over_defaults']:.2f}x"
                      f" the defaults'", flush=True)
            print(f"  best: {best['setting']}, {best['rate_over_defaults']:.2f}x the defaults' rate", flush=True)
    return rows


def tree_anchor_rows(anchor, inputs, threads_list, rounds, scratch):
    """ReplicatedRootSource against root:...,handles=lane on the object-branch file."""
    made = inputs.get("objects")
    if not made:
        return []
    rows = []
    for threads in threads_list:
        runs = paired(rounds, {"lanes": lambda: lanes_run(f"{made['source']},handles=lane", threads, scratch),
                               "anchor": lambda: anchor_run(anchor, made["files"][0], threads)})
        ours, theirs = spread(runs["lanes"], "events_per_s"), spread(runs["anchor"], "events_per_s")
        rows.append({"reading": "ReplicatedRootSource vs root:...,handles=lane", "threads": threads,
                     "lanes_events_per_s": ours, "anchor_events_per_s": theirs,
                     "ratio": ours["median"] / theirs["median"], "runs": runs})
    return rows


# The event-blob readers compared, each program reading the file it wrote itself from the object-branch input, at
# the same compression (zstd, level 1) and serialisation (ROOT's): (row, the anchor's outputer and its options,
# its source, lanes' output SPEC without file=, the files' extension).
BLOB_PAIRS = (
    ("SharedRootEventSource vs root-events (zstd 1)", "RootEventOutputer",
     "compressionAlgorithm=ZSTD:compressionLevel=1", "SharedRootEventSource",
     "root-events:compression=zstd,level=1,compress=event", ".root"),
    ("SharedRootBatchEventsSource vs root-events batch=10 (zstd 1)", "RootBatchEventsOutputer",
     "batchSize=10:compressionAlgorithm=ZSTD:compressionLevel=1", "SharedRootBatchEventsSource",
     "root-events:compression=zstd,level=1,compress=batch,batch=10", ".root"),
    ("SharedPDSSource vs pds (zstd 1)", "PDSOutputer", "compressionAlgorithm=ZSTD:compressionLevel=1",
     "SharedPDSSource", "pds:compression=zstd,level=1,compress=event", ".pds"),
)


def blob_files(anchor, made, outputer, options, output, extension):
    """(the anchor's file, lanes' file) of EVENTS object-branch events, each written by its own program, made on
    first use next to the input."""
    directory = made["files"][0].parent
    stem = re.sub(r"[^A-Za-z0-9]+", "-", output)
    ours, theirs = directory / f"lanes-{stem}{extension}", directory / f"anchor-{outputer}{extension}"
    if not ours.exists():
        plugin, _, settings = output.partition(":")
        partial = ours.with_name(ours.name + ".partial")
        run_process([LANES, "run", "--source", made["source"], "-n", EVENTS, "-t", 1, "--output",
                     f"{plugin}:file={partial},{settings}"])
        partial.rename(ours)
    if not theirs.exists():
        partial = theirs.with_name(theirs.name + ".partial" + extension)
        anchor_run(anchor, made["files"][0], 1, outputer=f"{outputer}={partial}:{options}")
        partial.rename(theirs)
    return theirs, ours


def blob_anchor_rows(anchor, inputs, threads_list, rounds, scratch):
    """The anchor's event-blob readers against lanes' root-events and pds sources (lanes with its defaults), as
    rows shaped like tree_anchor_rows()'."""
    made = inputs.get("objects")
    if not made:
        return []
    rows = []
    for reading, outputer, options, source, output, extension in BLOB_PAIRS:
        theirs, ours = blob_files(anchor, made, outputer, options, output, extension)
        plugin = output.partition(":")[0]
        for threads in threads_list:
            runs = paired(rounds, {"lanes": lambda: lanes_run(f"{plugin}:file={ours}", threads, scratch),
                                   "anchor": lambda: anchor_run(anchor, theirs, threads, source=source)})
            ours_rate, theirs_rate = spread(runs["lanes"], "events_per_s"), spread(runs["anchor"], "events_per_s")
            rows.append({"reading": reading, "threads": threads, "lanes_events_per_s": ours_rate,
                         "anchor_events_per_s": theirs_rate, "ratio": ours_rate["median"] / theirs_rate["median"],
                         "runs": runs})
    return rows


# The writers compared, each reading the object-branch input with its TTree source and writing it at zstd level 1:
# (row, the anchor's outputer and its options, lanes' output SPEC without file=, the files' extension).
WRITER_PAIRS = (
    ("writing: RootOutputer vs root (zstd 1)", "RootOutputer", "compressionAlgorithm=ZSTD:compressionLevel=1",
     "root:compression=zstd,level=1", ".root"),
    ("writing: HDFEventOutputer vs hdf5 blobs (zstd 1)", "HDFEventOutputer",
     "compressionAlgorithm=ZSTD:compressionLevel=1", "hdf5:layout=blobs,compression=zstd,level=1", ".h5"),
)


def writer_anchor_rows(anchor, inputs, threads_list, rounds, scratch):
    """The anchor's TTree and HDF5 event-blob writers against lanes' root and hdf5 outputs, shaped like
    tree_anchor_rows()' rows; each run writes into `scratch` over the last one's file."""
    made = inputs.get("objects")
    if not made:
        return []
    rows = []
    for writing, outputer, options, output, extension in WRITER_PAIRS:
        plugin, _, settings = output.partition(":")
        ours, theirs = Path(scratch) / f"lanes{extension}", Path(scratch) / f"anchor{extension}"
        for threads in threads_list:
            runs = paired(rounds, {
                "lanes": lambda: lanes_run(made["source"], threads, scratch, f"{plugin}:file={ours},{settings}"),
                "anchor": lambda: anchor_run(anchor, made["files"][0], threads,
                                             outputer=f"{outputer}={theirs}:{options}")})
            ours_rate, theirs_rate = spread(runs["lanes"], "events_per_s"), spread(runs["anchor"], "events_per_s")
            rows.append({"reading": writing, "threads": threads, "lanes_events_per_s": ours_rate,
                         "anchor_events_per_s": theirs_rate, "ratio": ours_rate["median"] / theirs_rate["median"],
                         "bytes": {"lanes": ours.stat().st_size, "anchor": theirs.stat().st_size}, "runs": runs})
    return rows


def anchor_rows(anchor, inputs, threads_list, rounds, scratch):
    rows = tree_anchor_rows(anchor, inputs, threads_list, rounds, scratch)
    blobs = blob_anchor_rows(anchor, inputs, threads_list, rounds, scratch)
    writers = writer_anchor_rows(anchor, inputs, threads_list, rounds, scratch)
    print_anchor_rows(rows + blobs + writers)
    return rows + blobs + writers


def print_anchor_rows(rows):
    for row in rows:
        print(f"anchor {row['reading']:48s} t={row['threads']}  lanes {row['lanes_events_per_s']['median']:7.0f} "
              f"[{row['lanes_events_per_s']['min']:.0f}-{row['lanes_events_per_s']['max']:.0f}] ev/s  anchor "
              f"{row['anchor_events_per_s']['median']:7.0f} [{row['anchor_events_per_s']['min']:.0f}-"
              f"{row['anchor_events_per_s']['max']:.0f}] ev/s  lanes/anchor {row['ratio']:.2f}"
              + (f"  (files: lanes {row['bytes']['lanes']:,} bytes, anchor {row['bytes']['anchor']:,})"
                 if "bytes" in row else ""), flush=True)


@functools.cache
def cpu_model(binary=LANES):
    """The CPU's model name and which CPU of that name, as `binary`'s run reports say them (`lanes provenance`):
    "AMD EPYC (family 25 model 17 stepping 1)". One name spans generations, and a figure moves with them."""
    try:
        completed = subprocess.run([str(binary), "provenance"], capture_output=True, text=True, check=True)
        provenance = json.loads(completed.stdout)
    except (OSError, subprocess.CalledProcessError, json.JSONDecodeError) as error:
        sys.exit(f"{binary} provenance failed: {error}")
    name = provenance.get("cpu_model") or "unknown CPU"
    identity = provenance.get("cpu_id")  # null where /proc/cpuinfo says none, absent before lanes recorded it
    return f"{name} ({identity})" if identity else name


def load():
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def markdown(rows, anchors):
    """The README's read table."""
    lines = ["| input | threads | lanes (s) | rootreadspeed (s) | rootreadspeed ÷ lanes | lanes ÷ its 1 thread: "
             "time / event rate | the machine's ceiling | CPU µs/event more than at 1 thread |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        scaling = (f"{row['lanes_scaling']:.2f} / {row['lanes_rate_scaling']:.2f} | {row['machine_ceiling']:.2f} | "
                   f"{row['lanes_extra_cpu_us_per_event']:.0f}" if "lanes_scaling" in row else " | | ")
        lines.append(f"| {row['title']} | {row['threads']} | {seconds(row['lanes_wall_s']).strip()} | "
                     f"{seconds(row['rootreadspeed_wall_s']).strip()} | {row['ratio']:.2f} | {scaling} |")
    if anchors:
        lines += ["", anchor_markdown(anchors)]
    return "\n".join(lines)


def anchor_markdown(anchors):
    """The table of lanes against the anchor, row by row."""
    lines = ["| compared | threads | lanes (events/s) | anchor (events/s) | lanes ÷ anchor |", "| --- | --- | --- | --- | --- |"]
    for row in anchors:
        lines.append(f"| {row['reading']} | {row['threads']} | {row['lanes_events_per_s']['median']:.0f} | "
                     f"{row['anchor_events_per_s']['median']:.0f} | {row['ratio']:.2f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (default 5)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--inputs", default=",".join(INPUTS), help=f"comma-separated, of {', '.join(INPUTS)}")
    parser.add_argument("--sweep", action="store_true", help="also each option setting against the defaults")
    parser.add_argument("--anchor", type=Path, help="the Fermilab framework's threaded_io_test, to compare with")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results")
    arguments = parser.parse_args()
    names = arguments.inputs.split(",")
    unknown = set(names) - set(INPUTS)
    if unknown:
        parser.error(f"unknown inputs: {', '.join(sorted(unknown))} (there are {', '.join(INPUTS)})")
    if arguments.anchor and not os.access(arguments.anchor, os.X_OK):
        parser.error(f"--anchor {arguments.anchor}: no such executable")
    threads_list = [int(t) for t in arguments.threads.split(",")]
    arguments.out.mkdir(parents=True, exist_ok=True)
    inputs = make_inputs(arguments.out, names)

    results = {"benchmark": "read_speed", "cpu": cpu_model(), "cores": os.cpu_count(), "load_before": load(),
               "rounds": arguments.rounds, "lanes": str(LANES)}
    print(f"CPU: {results['cpu']}, {results['cores']} cores; load average before: {results['load_before']}; "
          f"{arguments.rounds} paired rounds; medians [min-max]", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        results["rootreadspeed"] = rootreadspeed_rows(inputs, threads_list, arguments.rounds, scratch)
        if arguments.sweep:
            results["sweep"] = sweep_rows(inputs, threads_list, arguments.rounds, scratch)
        if arguments.anchor:
            results["anchor"] = anchor_rows(arguments.anchor, inputs, threads_list, arguments.rounds, scratch)
        else:
            print("anchor: not measured (no --anchor PATH_TO_threaded_io_test)", flush=True)
    results["load_after"] = load()
    print(f"load average after: {results['load_after']}")
    print()
    print(markdown(results["rootreadspeed"], results.get("anchor")))
    (arguments.out / "read_speed.json").write_text(json.dumps(results, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
