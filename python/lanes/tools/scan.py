#!/usr/bin/env python3
"""`lanes scan`: measures a grid of job configurations, each run a separate `lanes run --report`.

Started by `lanes scan ARGS` (which hands it the binary to run with --lanes), or directly:
    .venv/bin/python -m lanes.tools.scan --lanes build/bin/lanes ARGS
"""

import argparse
import os
import shlex
import sys
import tomllib
from pathlib import Path

from . import report as report_tool
from .lanes_report import inputs
from .lanes_scan import grid, plots, runner, table
from .lanes_scan.grid import Axis, Scan, ScanError

EPILOG = """\
axes (--vary NAME=V1,V2,...; several make a grid, their cartesian product):
  threads, lanes, processes, events      -t, -l, -p, -n
  pin, accel, accel-strategy             --pin, --accel, --accel-strategy
  source, output, module, waiter         a SPEC of the run arguments (after --): the first one, or
                                         COMPONENT[N] (from 0) or module[LABEL] (its label= or plugin);
  COMPONENT.KEY                          one option of it (output.compression=lz4,zstd);
                                         without .KEY the value replaces the plugin, keeping the options
                                         (output=root,parallel-root), or, with a ':', the whole SPEC
                                         a value that holds a comma goes in double quotes, as in a SPEC:
                                         output.file='"a,b.root"',c.root (in them \\" is a quote)
procedures:
  fixed          the same -n at every point
  per-thread     -n = events x threads (x processes): every point runs about as long
  fill-machine   concurrent copies of the job, copies x threads (x processes) = --cores (default: this
                 machine's); the point's rate is the sum of the copies', its wall time the longest

scan file (TOML; every key optional, the command line wins):
  menu = "../dimuon.toml"                a menu, relative to the scan file
  args = ["--source", "empty", "--output", "dummy"]   fixed run arguments ("./", "../": relative to the file)
  procedure = "per-thread"   events = 1000   repeat = 3   cores = 2
  [axes]
  threads = [1, 2]
  "output.compression" = ["lz4", "zstd"]

output directory (-o DIR), claimed while the scan runs (a second scan into it is refused): manifest.json, runs/ (every report, RUN.meta.json with its command lines and
error, stdout and stderr), files/ (each run's output files, with --keep-files), log.jsonl, table.csv and table.json (a row per run), summary.json (per point:
median, min, max), plots/*.png and *.svg; with --html FILE, the HTML report (`lanes report DIR -o FILE`).
Rerun with the same -o to resume: finished runs are kept. --dry-run checks the scan and prints its points
and commands (every examples/scans/*.toml is tested so).
Exit status: 0 all ran, 1 some failed (named at the end), 2 bad arguments, 130 interrupted.

examples:
  lanes scan examples/scans/threads-outputs.toml -o scan-outputs
  lanes scan -o scan-top --vary threads=1,2 --procedure per-thread --events 200000 -- --source empty --output dummy
  lanes scan -o scan-z --vary output.compression=lz4,zstd --repeat 3 -- \\
      --source root:file=data/files/nanoAOD_2015_CMS_Open_Data_ttbar.root,repeat=200 --output root:file=out.root
"""

FILE_KEYS = {"menu", "args", "axes", "procedure", "events", "repeat", "cores"}


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        raise ScanError(message)


def parser():
    p = OneLineParser(prog="lanes scan", description="Measure a grid of configurations of a job: every point "
                      "several times, interleaved, into one directory of reports, a table, a summary and plots.",
                      epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False,
                      usage="lanes scan [SCAN.toml] -o DIR [options] [-- LANES RUN ARGUMENTS]")
    p.add_argument("file", nargs="?", help="a scan file (TOML; as --scan)")
    p.add_argument("--scan", metavar="FILE", help="a scan file (TOML)")
    p.add_argument("-o", "--output", metavar="DIR", help="the output directory (resumed if it holds this scan; "
                   "required but with --dry-run)")
    p.add_argument("--vary", metavar="NAME=V1,V2", action="append", default=[], help="an axis (repeatable)")
    p.add_argument("--procedure", choices=grid.PROCEDURES, help="fixed (default), per-thread or fill-machine")
    p.add_argument("--events", type=int, metavar="N", help="events per point (per-thread: per thread); default: "
                   "the run arguments' -n, else 1000")
    p.add_argument("--repeat", type=int, metavar="N", help="runs per point, interleaved (default 1)")
    p.add_argument("--cores", type=int, metavar="N", help="fill-machine's machine size (default: this machine's)")
    p.add_argument("--keep-files", action="store_true", help="keep the files the runs' outputs write (files/; "
                   "by default each run's are removed when it ends)")
    p.add_argument("--html", metavar="FILE", help="also write the scan's HTML report to FILE (as `lanes report DIR "
                   "-o FILE` does)")
    p.add_argument("--force", action="store_true", help="start afresh in a directory that holds another scan")
    p.add_argument("--dry-run", action="store_true", help="check the scan, print its points and every run's "
                   "command line, and exit without running or writing anything")
    p.add_argument("--plugin-library", metavar="PATH", action="append", default=[],
                   help="a plugin library every run loads (repeatable; as `lanes run --plugin-library`)")
    p.add_argument("--lanes", metavar="PATH", default=os.environ.get("LANES_BINARY"),
                   help="the lanes binary to run (`lanes scan` passes itself)")
    return p


def resolve(word, base):
    """A scan file's relative path (./ or ../), alone or as a SPEC's option value, made absolute."""
    def fix(value):
        return str((base / value).resolve()) if value.startswith(("./", "../")) else value

    if word.startswith("-"):
        return word
    if ":" in word and "=" in word:
        spec = grid.Spec.parse(word)
        spec.options = [[o[0], fix(o[1])] if len(o) > 1 else o for o in spec.options]
        return str(spec)
    return fix(word)


def load_file(path):
    """The scan file's settings: {args, axes, procedure, events, repeat, cores}."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as error:
        raise ScanError(f"cannot read the scan file {path}: {error.strerror}")
    except tomllib.TOMLDecodeError as error:
        raise ScanError(f"scan file {path}: {error}")
    unknown = sorted(set(data) - FILE_KEYS)
    if unknown:
        raise ScanError(f"scan file {path}: unknown key {unknown[0]!r} (known: {', '.join(sorted(FILE_KEYS))})")
    base = Path(path).resolve().parent
    args = data.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ScanError(f"scan file {path}: args must be a list of strings")
    args = [resolve(a, base) for a in args]
    if "menu" in data:
        args = ["--menu", str((base / data["menu"]).resolve())] + args
    axes = data.get("axes", {})
    if not isinstance(axes, dict):
        raise ScanError(f"scan file {path}: axes must be a table of NAME = [VALUES]")
    data["axes"] = [Axis.of(name, v if isinstance(v, list) else [v]) for name, v in axes.items()]
    data["args"] = args
    return data


def build(argv):
    """(Scan, options) from the command line; raises ScanError."""
    if "--" in argv:
        cut = argv.index("--")
        argv, run_args = argv[:cut], argv[cut + 1:]
    else:
        run_args = []
    options = parser().parse_args(argv)
    if not options.output and not options.dry_run:
        raise ScanError("the output directory is required: -o DIR")
    if options.file and options.scan:
        raise ScanError("give the scan file once: as a positional or as --scan")
    settings = load_file(options.file or options.scan) if (options.file or options.scan) else {"axes": []}
    axes = {axis.name: axis for axis in settings["axes"]}
    varied = [Axis.parse(text) for text in options.vary]
    for axis in varied:
        if [a.name for a in varied].count(axis.name) > 1:
            raise ScanError(f"axis {axis.name} is given twice")
        axes[axis.name] = axis  # the command line wins over the scan file
    if options.html and not Path(options.html).resolve().parent.is_dir():
        raise ScanError(f"cannot write the HTML report {options.html}: its directory does not exist")
    if not options.lanes or not Path(options.lanes).is_file():
        raise ScanError(f"no lanes binary at {options.lanes!r}: give --lanes PATH (`lanes scan` does)")

    libraries = []
    for library in options.plugin_library:
        if not Path(library).is_file():
            raise ScanError(f"plugin library {library!r} is not found")
        libraries += ["--plugin-library", str(Path(library).resolve())]

    def setting(name, default=None):
        value = getattr(options, name)
        return value if value is not None else settings.get(name, default)

    scan = Scan(grid.parse_run_arguments(libraries + settings.get("args", []) + run_args), list(axes.values()),
                procedure=setting("procedure", "fixed"), events=setting("events"), repeat=setting("repeat", 1),
                cores=setting("cores"))
    for name in ("events", "repeat", "cores"):
        value = getattr(scan, name)
        if value is not None and (not isinstance(value, int) or value < 0):
            raise ScanError(f"{name} must be a non-negative integer, not {value!r}")
    scan.check()
    return scan, options


def print_summary(summary, rows, directory):
    for point in summary:
        rate = point["events_per_s"]
        figures = (f"{rate['median']:10.1f} events/s  ({rate['min']:.1f} - {rate['max']:.1f})" if rate
                   else "      (not run yet)" if not point["runs"] else "      (no successful run)")
        efficiency = point["cpu_efficiency"]
        cpu = f"  CPU {efficiency['median']:.1%}" if efficiency else ""
        print(f"{point['point']}  {' '.join(f'{k}={v}' for k, v in point['axes'].items()):40s}{figures}{cpu}")
    failed = [r for r in rows if r["failed"]]
    if failed:
        print(f"lanes scan: {len(failed)} of {len(rows)} runs failed:", file=sys.stderr)
        for r in failed:
            print(f"  {r['run']}: {r['error']}", file=sys.stderr)
    print(f"lanes scan: results in {directory} (table.csv, summary.json, plots/)", file=sys.stderr)


def tabulate(scan, runs, directory):
    """The table (table.csv, table.json), the summary (summary.json) and the plots of every run that ended: its rows
    and the summary."""
    rows = table.rows_of(runs, directory, runner.meta_path)
    table.write_table(rows, [axis.name for axis in scan.axes], directory)
    summary = table.summarise(scan.points(), rows, directory)
    plots.plot(summary, directory / "plots")
    return rows, summary


def measure(scan, runs, directory, options):
    """Runs what is left, then writes the table, the summary and the plots of every run that ended."""
    status = 0
    try:
        runner.run_all(runs, directory, os.getcwd(), options.keep_files)
    except KeyboardInterrupt:
        status = 130
    except runner.Interrupted as interrupted:
        status = interrupted.status
    if status:
        print(f"\nlanes scan: interrupted; rerun with -o {options.output} to resume", file=sys.stderr)
    rows, summary = tabulate(scan, runs, directory)
    if options.html:
        report_tool.write(inputs.load(directory), None, Path(options.html))
    print_summary(summary, rows, directory)
    return status or (1 if any(r["failed"] for r in rows) else 0)


def print_plan(scan, runs):
    """--dry-run: the points, then every run's command lines, in the order they would run."""
    for point in scan.points():
        plan = scan.plan(point)
        copies = f", {plan['copies']} copies" if plan["copies"] > 1 else ""
        print(f"{point.id}  {point.label()}  ({plan['threads']} threads, {plan['events']} events{copies})")
    for run in runs:
        for command in run.commands:
            print(f"{run.id}  {shlex.join(command)}")
    print(f"lanes scan: {len(scan.points())} points, {len(runs)} runs (dry run: nothing ran)", file=sys.stderr)


def describe(error):
    return f"{error.filename}: {error.strerror}" if error.filename else str(error)


def main(argv):
    try:
        scan, options = build(argv)
        directory = Path(options.output).resolve() if options.output else Path("DIR")
        runs = runner.plan_runs(scan, Path(options.lanes).resolve(), directory)
        if options.dry_run:
            print_plan(scan, runs)
            return 0
        command = ["lanes", "scan"] + (argv[2:] if argv[:1] == ["--lanes"] else argv)  # as the user gave it
        runner.prepare(scan, runs, directory, options.force, runner.provenance_of(options.lanes, command))
    except ScanError as error:
        print(f"lanes: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"lanes: error: {describe(error)}", file=sys.stderr)
        return 2
    runner.raise_on_signals()
    try:
        return measure(scan, runs, directory, options)
    except OSError as error:  # a full disk, a directory removed under the scan
        print(f"\nlanes: error: {describe(error)}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, runner.Interrupted) as interrupted:  # a signal while tabulating or plotting
        print(f"\nlanes scan: interrupted; rerun with -o {options.output} to resume", file=sys.stderr)
        return getattr(interrupted, "status", 130)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
