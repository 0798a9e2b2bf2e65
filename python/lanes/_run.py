"""job.run(): `lanes run` in a process of its own (a crash cannot take the caller down), its progress drawn by tqdm,
Ctrl-C (or a kernel's interrupt) forwarded as one SIGINT that stops it as lanes stops on SIGINT: the events in
flight finish, the outputs are committed or removed, never left half-written."""

import dataclasses
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import cloudpickle

from . import _locations, _menu
from ._errors import JobError
from ._result import Result


def _absolute(value):
    """Option values that start with ./ or ../, relative to the caller's directory (a menu would read them
    relative to its own)."""
    if isinstance(value, str) and value.startswith(("./", "../")):
        return str(Path(value).resolve())
    if isinstance(value, list):
        return [_absolute(v) for v in value]
    if isinstance(value, dict):
        return {k: _absolute(v) for k, v in value.items()}
    return value


def spec_value(value):
    """A value as a SPEC writes it: in double quotes (\\" a quote, \\\\ a backslash) if it holds a comma or starts
    with a quote."""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value) if isinstance(value, float) else str(value)
    if "," in text or text.startswith('"'):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def spec(component):
    """The SPEC of a component: plugin:key=value,... (a list a repeated key, a dict a family of keys)."""
    pairs = [("label", component.label)] if component.label is not None else []
    for key, value in component.options.items():
        if isinstance(value, dict):
            pairs += [(f"{key}.{k}", v) for k, v in value.items()]
        elif isinstance(value, list):
            pairs += [(key, v) for v in value]
        else:
            pairs.append((key, value))
    pairs += [("select", s) for s in component.select or []]
    return component.plugin + (":" + ",".join(f"{k}={spec_value(_absolute(v))}" for k, v in pairs) if pairs else "")


def arguments(job, directory):
    """`lanes run`'s arguments for `job`, its components as SPECs (so that a scan can vary them as `lanes scan`
    varies SPECs), its paths in a menu, each Python analyzer pickled (its function, consumes and results), all in
    `directory`. Returns the arguments and {label: the analyzer's results file}."""
    words, results = [], {}
    for library in job.plugin_libraries:
        words += ["--plugin-library", str(library)]
    if job.paths:
        menu = directory / "paths.toml"
        menu.write_text("\n\n".join(f"[[path]]\nname = {_menu.value(name)}\nmodules = {_menu.value(modules)}"
                                      for name, modules in job.paths) + "\n")
        words += ["--menu", str(menu)]
    for flag, number in (("-t", job.threads), ("-l", job.lanes), ("-n", job.events)):
        if number is not None:
            words += [flag, str(number)]
    if job.on_error != "stop":
        words += ["--on-error", job.on_error]
    if job.source_spec is not None:
        words += ["--source", spec(job.source_spec)]
    words += [w for waiter in job.waiters for w in ("--waiter", spec(waiter))]
    for module in job.modules:
        if module.analyzer is not None:
            module = _pickled(module, directory, results)
        words += ["--module", spec(module)]
    words += [w for output in job.outputs for w in ("--output", spec(output))]
    return words, results


def _pickled(module, directory, results):
    """A Python analyzer's module as the job runs it: pickled in `directory`, its results file beside it."""
    pickled = directory / f"{module.label}.analyzer.pickle"
    try:
        pickled.write_bytes(cloudpickle.dumps(module.analyzer))
    except (pickle.PicklingError, TypeError, AttributeError) as error:
        raise JobError(f"analyzer {module.label}: cannot hand it to the job: {error}") from None
    results[module.label] = directory / f"{module.label}.results.pickle"
    return dataclasses.replace(module, options={"pickled": str(pickled), "results": str(results[module.label])})


def environment(job):
    """The job's environment: a Python analyzer's interpreter is this one, with this one's import path (the
    analyzers' modules import there as here)."""
    env = dict(os.environ)
    if job.analyzers():
        env["LANES_PYTHON"] = sys.executable
        env["PYTHONPATH"] = os.pathsep.join(p if p else os.getcwd() for p in sys.path)
    return env


class Progress:
    """A tqdm bar fed by the JSON progress lines of `lanes run --progress-json`; other lines (warnings) pass on to
    stderr. Lane-confined: the thread that reads the job's stderr."""

    def __init__(self, show, total):
        self.bar = None
        if show:
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total or None, unit="ev", desc="lanes", dynamic_ncols=True)
        self.lines = []

    def line(self, text):
        if text.startswith("{"):
            try:
                tick = json.loads(text)
            except ValueError:
                tick = None
            if isinstance(tick, dict) and "events" in tick:
                if self.bar is not None:
                    self.bar.total = tick.get("total") or self.bar.total
                    self.bar.update(tick["events"] - self.bar.n)
                return
        self.lines.append(text)
        if text.startswith("lanes: warning"):
            print(text, file=sys.stderr)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _read(stream, handle):
    for raw in stream:
        handle(raw.rstrip("\n"))


def _wait(process):
    """Waits for the job; Ctrl-C forwards one SIGINT (a graceful stop) and goes on waiting, a second ends the job
    at once, as in a terminal. Returns whether the caller was interrupted."""
    interrupted = False
    while True:
        try:
            process.wait()
            return interrupted
        except KeyboardInterrupt:
            os.killpg(process.pid, signal.SIGINT)
            if interrupted:
                process.wait()
                return True
            interrupted = True


def launch(job, directory, report, trace=None, html=None, progress=True, kept=False):
    """Runs `job` from `directory` (its menu and analyzers there), writing its report to `report` (`kept`: a file
    the caller keeps, which the Result names); returns the Result, or raises JobError (KeyboardInterrupt once an
    interrupted job has stopped)."""
    words, results = arguments(job, directory)
    command = [str(_locations.binary()), "run", *words, "--report", str(report), "--progress-json"]
    if trace:
        command += ["--trace", str(trace)]
    if html:
        command += ["--html", str(html)]
    lines = Progress(progress, job.events if job.events is not None else 1000)
    summary = []
    # A session of its own: the terminal's Ctrl-C reaches this process only, which forwards one SIGINT.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               text=True, env=environment(job), start_new_session=True)
    readers = [threading.Thread(target=_read, args=(process.stdout, summary.append), daemon=True),
               threading.Thread(target=_read, args=(process.stderr, lines.line), daemon=True)]
    for reader in readers:
        reader.start()
    try:
        interrupted = _wait(process)
    finally:
        for reader in readers:
            reader.join()
        lines.close()
    return finish(process.returncode, interrupted, report, kept, trace, results, "\n".join(summary), lines.lines)


def _error_line(lines, status):
    errors = [line for line in lines if line.startswith("lanes: error: ")]
    if errors:
        return errors[-1][len("lanes: error: "):]
    if status < 0:
        return f"the job's process was killed by {signal.Signals(-status).name}" + (f": {lines[-1]}" if lines else "")
    return lines[-1] if lines else f"lanes run ended with exit status {status}"


def finish(status, interrupted, report_path, kept, trace, results, summary, lines):
    report = None
    if status in (0, 1) or status > 128:
        try:
            report = json.loads(Path(report_path).read_text())
        except (OSError, ValueError):
            report = None
    analyzers = {}
    for label, path in results.items():
        if path.is_file():
            with open(path, "rb") as f:
                analyzers[label] = pickle.load(f)
    result = Result(report, summary, analyzers, report_path if kept else None, trace) if report is not None else None
    if interrupted:
        raise KeyboardInterrupt("the job was interrupted: it stopped as lanes stops on SIGINT "
                                "(its outputs committed or removed)")
    if status == 0 and result is not None:
        return result
    if result is not None and report.get("error"):
        raise JobError(report["error"], result, status)
    raise JobError(_error_line(lines, status), result, status)


def run(job, report=None, trace=None, html=None, progress=True):
    """job.run(): see Job.run."""
    with tempfile.TemporaryDirectory(prefix="lanes-job-") as scratch:
        directory = Path(scratch)
        written = Path(report).resolve() if report else directory / "report.json"
        return launch(job, directory, written, trace and Path(trace).resolve(), html and Path(html).resolve(),
                      progress, kept=bool(report))
