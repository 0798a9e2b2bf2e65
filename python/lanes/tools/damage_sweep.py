#!/usr/bin/env python3
"""The damaged-file sweep: what lanes does with a damaged copy of each file format it reads.

For every format lanes reads (`root`, `rntuple`, `root-events`, `pds`, `hdf5` in both layouts), each with its
default and one other compression, written by lanes from the first 50 events of the NanoAOD file (and an RNTuple of
classes and collections, from 50 events of the `test-products` source: a user class alone and in a std::vector,
nested vectors, a map, a string), and for the real files in data/files (ATLAS PHYSLITE's jets among them): seeded
damaged copies (a truncation at a random length; 8 bytes inverted at a random offset,
or at one in the first 4 kB, where headers live; 64 bytes zeroed at a random offset), each read back by

    lanes run -t 1 -n 0 --source FORMAT:file=COPY --output pds:file=OUT,compression=none

and classified:

    error          exit 1 or 2 with one line `lanes: error: ...` naming the copy
    error+root     the same line, after lines that ROOT's decompressors print to stderr themselves ("R__unzip: error
                   -3 in inflate (zlib)", "R__unzipLZ4: Buffer corruption error!", "Error in unzip ZSTD. ..."): they
                   bypass ROOT's error handler, so lanes cannot take them into its line
    other-error    any other non-zero exit (other lines, or no `lanes: error:` line naming the copy last)
    same           exit 0, and every value, id and event as in the undamaged file
    changed        exit 0, and some value, id or event count differs
    signal-named   killed by a signal, having printed a line that names the copy
    signal-silent  killed by a signal with nothing that names the copy
    hang           still running after --timeout seconds (then killed)

Values are compared with lanes' own dump of the undamaged file: the same job on the undamaged file. A dump is a
`pds` file without compression, which holds every event's id and every product's serialised bytes in the order the
one thread read them, so two dumps are equal byte for byte exactly when every event, id and value (NaNs included)
is; comparing their hashes costs nothing beside the job, where reading ~1,000 products per copy with uproot or h5py
would cost more than the job itself. An independent reader would add nothing here: the two sides differ only by
the damage, and that lanes reads each undamaged format right is what the round-trip tests (tests/root) hold,
against uproot.

Deterministic: copy i of a file is damaged from random.Random("SEED/FILE/i"), whatever --jobs is.

    .venv/bin/python -m lanes.tools.damage_sweep            # the short sweep (16 copies a file)
    .venv/bin/python -m lanes.tools.damage_sweep --long     # 500 copies a file (>= 1,000 a format), and the ROOT
                                                      # outputs' other settings (zlib, none)
    .venv/bin/python -m lanes.tools.damage_sweep --json results.json --only pds

The limits that docs/faults.md documents (a format's outcomes that fail the sweep, at the rate measured) are in
tests/faults/damage_limits.json; the exit status is 1 when an outcome that fails the sweep is above its limit.
"""

import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "data" / "files"
NANO = DATA / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
LIMITS = REPO / "tests" / "faults" / "damage_limits.json"

OUTCOMES = ("error", "error+root", "other-error", "same", "changed", "signal-named", "signal-silent", "hang")
# Outcomes that fail the sweep unless tests/faults/damage_limits.json documents them for the file.
FAILING = ("other-error", "changed", "signal-silent", "hang")
# What ROOT's decompressors print to stderr themselves (core/zip, core/lz4, core/zstd).
ROOT_DECOMPRESSOR_LINE = re.compile(r"^(R__unzip|Error R__unzip|Error in unzip ZSTD)")
DAMAGES = ("truncate", "flip", "flip-head", "zero")
EVENTS = 50  # of the NanoAOD file, in each file lanes writes
SHORT_COPIES, LONG_COPIES = 16, 500  # a file


@dataclass(frozen=True)
class Subject:
    """One undamaged file of the sweep: written by lanes (`output`, a SPEC without file=, from `input`, a source
    SPEC) or taken from data/files (`path`), read back with `source` (a SPEC without file=)."""

    name: str  # a row of the table: the format and its setting
    source: str
    output: str = ""
    path: Path = None
    input: str = f"root:file={NANO}"

    def file_name(self):
        if self.path:
            return self.path.name
        extension = {"pds": ".pds", "hdf5": ".h5"}.get(self.source, ".root")
        return re.sub(r"[^A-Za-z0-9]+", "-", self.name).strip("-") + extension


# The formats lanes writes, each in its default setting and one other: (row, source, output SPEC without file=).
WRITTEN = (
    ("root (lz4-4, default)", "root", "root"), ("root (zstd-5)", "root", "root:compression=zstd,level=5"),
    ("rntuple (zstd-5, default)", "rntuple", "rntuple"), ("rntuple (lz4-4)", "rntuple", "rntuple:compression=lz4"),
    ("root-events (lz4, default)", "root-events", "root-events"),
    ("root-events (zstd, batch=10)", "root-events", "root-events:compression=zstd,batch=10"),
    ("pds (lz4, default)", "pds", "pds"), ("pds (zstd, batch=10)", "pds", "pds:compression=zstd,batch=10"),
    ("hdf5 columns (default)", "hdf5", "hdf5:layout=columns"),
    ("hdf5 columns (deflate=1)", "hdf5", "hdf5:layout=columns,deflate=1"),
    ("hdf5 blobs (none, default)", "hdf5", "hdf5:layout=blobs"),
    ("hdf5 blobs (zstd)", "hdf5", "hdf5:layout=blobs,compression=zstd"),
)
# The real files of data/files, each read whole, with the source options it needs.
REAL = (
    ("data: nanoAOD TTree", "root", NANO.name),
    ("data: nanoAOD vector TTree", "root:id=EventID", "nanoAOD_2015_ttbar_vector_branches.root"),
    ("data: HZZ objects TTree", "root:tree=events", "uproot-HZZ-objects.root"),
    ("data: Event fullsplit TTree", "root:tree=tree", "uproot-small-evnt-tree-fullsplit.root"),
    ("data: muons RNTuple", "rntuple", "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root"),
    # The jets' AuxDyn fields that lanes reads through a dictionary: std::vectors of numbers, and nested ones.
    ("data: PHYSLITE jets RNTuple", "rntuple:ntuple=EventData,fields=AnalysisJetsAuxDyn:*,exclude=*Link,"
     "exclude=AnalysisJetsAuxDyn:GhostTrack", "rntuple/uproot-physlite-rntuple_v1-0-0-0.root"),
)
SUBJECTS = tuple(Subject(name, source, output) for name, source, output in WRITTEN) + (
    Subject("rntuple classes (zstd-5, default)", "rntuple", "rntuple", input="test-products"),
) + tuple(Subject(name, source, path=DATA / file) for name, source, file in REAL)
# The other compression settings of the ROOT outputs, for their rows of docs/faults.md: in --long only.
LONG_ONLY = tuple(Subject(name, source, output) for name, source, output in (
    ("root (zlib-1)", "root", "root:compression=zlib,level=1"), ("root (none)", "root", "root:level=0"),
    ("rntuple (none)", "rntuple", "rntuple:level=0")))


def spec(plugin_spec, path):
    """PLUGIN:file=PATH[,OPTIONS] from a SPEC without file=."""
    plugin, _, options = plugin_spec.partition(":")
    return f"{plugin}:file={path}" + (f",{options}" if options else "")


def no_core_dumps():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@dataclass
class Run:
    returncode: int = None  # None: killed after the timeout
    stderr: str = ""


def lanes(binary, args, cwd, timeout):
    try:
        done = subprocess.run([str(binary), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                              errors="replace", timeout=timeout, stdin=subprocess.DEVNULL, preexec_fn=no_core_dumps)
    except subprocess.TimeoutExpired as expired:
        stderr = expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else expired.stderr or ""
        return Run(None, stderr)
    return Run(done.returncode, done.stderr)


def read_back(binary, subject, path, out, timeout):
    """The job that reads `path` as `subject` and dumps what it read into `out`."""
    return lanes(binary, ["run", "-t", "1", "-n", "0", "--source", spec(subject.source, path), "--output",
                          f"pds:file={out},compression=none"], out.parent, timeout)


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def damage(data, kind, rng):
    """`data` (bytes) damaged by `kind`; returns (bytes, where)."""
    size = len(data)
    if kind == "truncate":
        at = rng.randrange(size)
        return data[:at], at
    damaged = bytearray(data)
    if kind == "zero":
        at = rng.randrange(size - 64)
        damaged[at:at + 64] = bytes(64)
    else:
        at = rng.randrange(min(size, 4096) - 8 if kind == "flip-head" else size - 8)
        for i in range(at, at + 8):
            damaged[i] ^= 0xFF
    return bytes(damaged), at


def classify(run, copy, reference, out):
    if run.returncode is None:
        return "hang"
    lines = run.stderr.strip().splitlines()
    if run.returncode < 0:
        return "signal-named" if any(copy.name in line for line in lines) else "signal-silent"
    if run.returncode != 0:
        if not (lines and lines[-1].startswith("lanes: error: ") and copy.name in lines[-1]):
            return "other-error"
        if len(lines) == 1:
            return "error"
        return "error+root" if all(ROOT_DECOMPRESSOR_LINE.match(line) for line in lines[:-1]) else "other-error"
    try:
        return "same" if digest(out) == reference else "changed"
    except OSError:  # exit 0 without the dump
        return "changed"


@dataclass
class Row:
    subject: str
    counts: dict = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    examples: dict = field(default_factory=dict)  # outcome: a few (damage, offset, stderr's last line)

    @property
    def copies(self):
        return sum(self.counts.values())


def prepare(binary, subject, directory, timeout):
    """The undamaged file of `subject` in `directory`, and the digest of its dump."""
    if subject.path:
        original = subject.path
    else:
        # By a relative name: ROOT files hold the name they were written by, which would move every byte after
        # it with the length of the scratch directory's name.
        original = directory / subject.file_name()
        run = lanes(binary, ["run", "-t", "1", "-n", EVENTS, "--source", subject.input, "--output",
                             spec(subject.output, original.name)], directory, timeout)
        if run.returncode != 0:
            raise RuntimeError(f"cannot write {subject.name}: {run.stderr.strip()}")
    out = directory / "reference.pds"
    run = read_back(binary, subject, original, out, timeout)
    if run.returncode != 0:
        raise RuntimeError(f"cannot read the undamaged {subject.name}: {run.stderr.strip()}")
    reference = digest(out)
    out.unlink()
    return original, reference


def sweep_one(binary, subject, original, reference, index, seed, directory, timeout):
    kind = DAMAGES[index % len(DAMAGES)]
    rng = random.Random(f"{seed}/{subject.file_name()}/{index}")
    data, at = damage(original.read_bytes(), kind, rng)
    work = directory / f"copy-{index}"
    work.mkdir()
    try:
        copy = work / ("damaged-" + original.name)
        copy.write_bytes(data)
        out = work / "out.pds"
        run = read_back(binary, subject, copy, out, timeout)
        outcome = classify(run, copy, reference, out)
        return outcome, (kind, at, run.returncode, run.stderr[-1500:])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def sweep(binary, subjects, copies, seed, jobs, timeout, progress=None):
    """Runs the sweep; returns a Row per subject."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="lanes-damage-") as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for number, subject in enumerate(subjects):
            directory = Path(scratch) / f"subject-{number}"
            directory.mkdir()
            original, reference = prepare(binary, subject, directory, timeout)
            row = Row(subject.name)
            futures = [pool.submit(sweep_one, binary, subject, original, reference, i, seed, directory, timeout)
                       for i in range(copies)]
            for future in futures:
                outcome, example = future.result()
                row.counts[outcome] += 1
                row.examples.setdefault(outcome, [])
                if len(row.examples[outcome]) < 3:
                    row.examples[outcome].append(example)
            rows.append(row)
            if progress:
                progress(row)
    return rows


def load_limits(path=LIMITS):
    """{subject: {outcome: {"rate": measured rate, "why": ...}}}: the documented limits."""
    return json.loads(Path(path).read_text())["limits"]


def allowed(rate, copies):
    """The most copies of an outcome documented at `rate` that a sweep of `copies` accepts: the expected count and
    three standard deviations of the binomial, rounded up."""
    expected = rate * copies
    return math.ceil(expected + 3 * math.sqrt(expected * (1 - rate)) + 1) if rate > 0 else 0


def failures(rows, limits):
    """Lines naming each outcome that fails the sweep, above its documented limit."""
    found = []
    for row in rows:
        for outcome in FAILING:
            count = row.counts[outcome]
            limit = limits.get(row.subject, {}).get(outcome)
            most = allowed(limit["rate"], row.copies) if limit else 0
            if count > most:
                documented = f"documented at {limit['rate']:.1%}" if limit else "not documented"
                found.append(f"{row.subject}: {count} of {row.copies} copies {outcome} ({documented}); "
                             f"e.g. {row.examples.get(outcome)}")
    return found


def table(rows):
    """The issue's table, a row per file: damaged copies and each outcome's count."""
    lines = ["| format (setting) | damaged copies | " + " | ".join(OUTCOMES) + " |",
             "| --- | --- | " + " | ".join("---" for _ in OUTCOMES) + " |"]
    for row in rows:
        lines.append(f"| {row.subject} | {row.copies} | " + " | ".join(str(row.counts[o]) for o in OUTCOMES) + " |")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(prog="damage_sweep.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--long", action="store_true", help=f"{LONG_COPIES} copies a file (default: {SHORT_COPIES})")
    parser.add_argument("--copies", type=int, help="copies a file (overrides --long)")
    parser.add_argument("--seed", default="lanes", help="the seed of the damage (default: lanes)")
    parser.add_argument("--jobs", type=int, default=2, help="lanes processes at a time (default 2)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds before a job counts as hung (60)")
    parser.add_argument("--only", action="append", default=[], help="files whose row name holds this (repeatable)")
    parser.add_argument("--json", type=Path, help="write the rows (counts and examples) here")
    parser.add_argument("--binary", type=Path, default=Path(os.environ.get("LANES_BINARY", REPO / "build/bin/lanes")))
    options = parser.parse_args(argv)
    copies = options.copies or (LONG_COPIES if options.long else SHORT_COPIES)
    candidates = SUBJECTS + (LONG_ONLY if options.long or options.only else ())
    subjects = [s for s in candidates if not options.only or any(o in s.name for o in options.only)]
    rows = sweep(options.binary, subjects, copies, options.seed, options.jobs, options.timeout,
                 progress=lambda row: print(json.dumps(row.__dict__), file=sys.stderr, flush=True))
    print(table(rows))
    if options.json:
        options.json.write_text(json.dumps([row.__dict__ for row in rows], indent=1))
    found = failures(rows, load_limits())
    for line in found:
        print(f"damage_sweep: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
