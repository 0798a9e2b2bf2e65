"""Runs a scan's runs, interleaved, each a `lanes run` process (or several concurrent copies) with --report.

The output directory holds manifest.json (the scan, every run's command lines, and the scan's provenance: what
`lanes provenance` says of the machine and the build as it started), runs/RUN[-cK].json (each
copy's report), runs/RUN.meta.json (written when a run ends: its commands, exit statuses, duration, status and
error), runs/RUN[-cK].out and .err (the copies' stdout and stderr), files/RUN[-cK]-NAME (what the outputs write, removed after
the run unless kept), and log.jsonl (a line per run started,
in order, over every invocation). A run is done when its meta says ok and its reports exist: a rerun with the
same directory runs only the others.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .claim import claim
from .grid import ScanError, copy_command
from .progress import Progress


class Interrupted(Exception):
    """The scan was stopped by a signal; `status` is its exit status (130 for SIGINT, 143 for SIGTERM)."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


@dataclass
class Run:
    point: object
    repeat: int
    plan: dict
    commands: list
    reports: list

    @property
    def id(self):
        return f"{self.point.id}-r{self.repeat}"


def write_json(path, value):
    """Writes through PATH.tmp, renamed when complete, so a killed scan never leaves a half file."""
    temporary = Path(str(path) + ".tmp")
    try:
        temporary.write_text(json.dumps(value, indent=2) + "\n")
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)


def read_json(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def plan_runs(scan, lanes, directory):
    """Every run, in the order they run: repeat after repeat, each over every point (A B C A B C ...)."""
    runs = []
    points = [(point, scan.plan(point)) for point in scan.points()]
    for repeat in range(1, scan.repeat + 1):
        for point, plan in points:
            run_id = f"{point.id}-r{repeat}"
            names = [run_id] if plan["copies"] == 1 else [f"{run_id}-c{k}" for k in range(1, plan["copies"] + 1)]
            reports = [directory / "runs" / f"{name}.json" for name in names]
            commands = [copy_command(lanes, plan, report, directory / "files" / f"{name}-", directory / "runs" /
                                     f"{name}.trace.json") for name, report in zip(names, reports)]
            runs.append(Run(point, repeat, plan, commands, reports))
    return runs


def provenance_of(lanes, command):
    """What `lanes provenance` says of this machine and build, with the scan's `command` as run."""
    try:
        completed = subprocess.run([str(lanes), "provenance"], capture_output=True, text=True, timeout=60,
                                   stdin=subprocess.DEVNULL)
        provenance = json.loads(completed.stdout) if completed.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        provenance = None
    if not isinstance(provenance, dict):
        raise ScanError(f"{lanes} provenance did not say where the scan runs: is it a lanes binary?")
    provenance["command"] = command
    return provenance


def prepare(scan, runs, directory, force, provenance):
    """Creates the directory, claims it for this scan (a scan running there now is refused), and writes its
    manifest; refuses another scan's directory unless `force` (which clears it). A resumed scan keeps the
    provenance of its start."""
    directory.mkdir(parents=True, exist_ok=True)
    manifest_path = directory / "manifest.json"
    claim(manifest_path, f"the scan directory {directory}")
    old = read_json(manifest_path) if manifest_path.exists() else None
    if manifest_path.exists() and (old is None or old.get("scan") != scan.describe()):
        if not force:
            raise ScanError(f"{directory} holds a different scan (its manifest.json differs): "
                            "choose another -o, or --force to start it afresh")
        for name in ("runs", "files", "plots"):
            shutil.rmtree(directory / name, ignore_errors=True)
        (directory / "log.jsonl").unlink(missing_ok=True)
    (directory / "runs").mkdir(parents=True, exist_ok=True)
    (directory / "files").mkdir(exist_ok=True)
    if old and old.get("scan") == scan.describe() and isinstance(old.get("provenance"), dict):
        provenance = old["provenance"]
    write_json(manifest_path, {
        "scan": scan.describe(),
        "provenance": provenance,
        "points": [{"point": p.id, "axes": p.values} for p in scan.points()],
        "runs": [{"run": r.id, "point": r.point.id, "repeat": r.repeat, "copies": r.plan["copies"],
                  "commands": r.commands, "reports": [str(p) for p in r.reports]} for r in runs],
    })


def meta_path(directory, run):
    return directory / "runs" / f"{run.id}.meta.json"


def is_done(directory, run):
    meta = read_json(meta_path(directory, run))
    return bool(meta) and meta.get("status") == "ok" and all(report.exists() for report in run.reports)


def last_line(path):
    try:
        lines = [line.strip() for line in Path(path).read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def exit_description(code):
    return f"killed by signal {-code}" if code < 0 else f"exit status {code}"


def copy_error(report_path, err_path, code):
    """Why a copy failed: its report's error, else its stderr's last line, else its exit status."""
    report = read_json(report_path)
    if report and report.get("failed") and report.get("error"):
        return report["error"]
    return last_line(err_path) or exit_description(code)


class _HeldSignals:
    """A stop signal that came while the copies started, held until they all have (raise_on_signals()).

    Raised there (say inside subprocess.Popen, after its fork), it would leave a copy that had just started running
    after the scan ended, in a session of its own and so out of the terminal's reach: no one would stop it."""

    holding = False
    signum = None


def start_copies(run, cwd, processes):
    """Starts each copy of `run`, appended to `processes` as it starts; a stop signal waits until all have."""
    _HeldSignals.holding = True
    try:
        _start_each(run, cwd, processes)
    finally:
        _HeldSignals.holding = False
    signum, _HeldSignals.signum = _HeldSignals.signum, None
    if signum is not None:
        _raise_for(signum)


def _start_each(run, cwd, processes):
    for command, report in zip(run.commands, run.reports):
        report.unlink(missing_ok=True)  # an earlier attempt's report must not pass for this one's
        stem = report.with_suffix("")
        with open(f"{stem}.out", "w") as out, open(f"{stem}.err", "w") as err:
            # A session of its own: the terminal's Ctrl-C reaches the scan, which forwards one SIGINT.
            processes.append(subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd,
                                              start_new_session=True))


def stop_copies(processes):
    """Forwards SIGINT (the copies stop gracefully) and waits; a second interrupt kills them."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    try:
        for process in processes:
            process.wait()
    except (KeyboardInterrupt, Interrupted):
        for process in processes:
            process.kill()
            process.wait()


def execute(run, cwd):
    """Runs one run's copies concurrently and returns its meta (status ok or failed, with the error)."""
    started = time.time()
    processes = []
    try:
        start_copies(run, cwd, processes)
        codes = [process.wait() for process in processes]
    except (KeyboardInterrupt, Interrupted, OSError):  # OSError: a copy could not start; those before it stop too
        stop_copies(processes)
        raise
    errors = []
    for report, code in zip(run.reports, codes):
        report_json = read_json(report)
        if code != 0 or not report_json or report_json.get("failed"):
            errors.append(copy_error(report, report.with_suffix(".err"), code))
    return {"run": run.id, "point": run.point.id, "repeat": run.repeat, "axes": run.point.values,
            "commands": run.commands, "exit_codes": codes, "started": started,
            "duration_s": time.time() - started, "status": "failed" if errors else "ok",
            "error": errors[0] if errors else ""}


def log_start(directory, run):
    with open(directory / "log.jsonl", "a") as log:
        log.write(json.dumps({"run": run.id, "point": run.point.id, "repeat": run.repeat, "time": time.time()}) + "\n")


def remove_files(directory, run):
    for path in (directory / "files").glob(f"{run.id}-*"):
        path.unlink()


def run_all(runs, directory, cwd, keep_files=False, stream=sys.stderr, progress=Progress):
    """Runs every run not yet done; returns the metas of this invocation. Raises Interrupted on a signal.
    The files a run's outputs write are removed when it ends, unless `keep_files`. `progress(total, done,
    stream)` shows the progress (start(), finish(), close(): Progress's)."""
    todo = [run for run in runs if not is_done(directory, run)]
    progress = progress(len(runs), len(runs) - len(todo), stream)
    metas = []
    for run in todo:
        progress.start(run.id, run.point.label())
        log_start(directory, run)
        try:
            meta = execute(run, cwd)
        finally:
            if not keep_files:
                remove_files(directory, run)
        write_json(meta_path(directory, run), meta)
        metas.append(meta)
        progress.finish(run.id, meta["duration_s"], meta["error"])
    progress.close()
    return metas


def _raise_for(signum):
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Interrupted(128 + signum)


def raise_on_signals():
    """SIGINT raises KeyboardInterrupt even where the scan was started with it ignored (a shell's background
    job), SIGTERM raises Interrupted(143): either way the runs in flight are stopped and the results written.
    While copies start, the signal is held until they all have (_HeldSignals)."""
    def handler(signum, frame):
        if _HeldSignals.holding:
            _HeldSignals.signum = _HeldSignals.signum or signum
            return
        _raise_for(signum)

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
