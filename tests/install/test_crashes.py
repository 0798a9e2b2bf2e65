"""A plugin library that dies of a fatal signal (tests/install/plugins/Crash.cpp, built against the installed lanes
and loaded with --plugin-library) never ends a job silently. Before the process dies, one line names the signal and
what ran: the module (or the source) and its plugin, the transition, the lane, the event and the thread; then the
stack trace of that thread, symbolised, unless LANES_NO_STACKTRACE=1. The exit status is the signal's own. A worker
of a --processes job leaves the line to its parent, whose error names the worker, and the report lists the crash
under the module; an MPI rank prints it naming itself.

The catalogue: every signal in a module's event, and SIGSEGV in every place (a module's construction, beginJob and
endJob, the source's construction and next event, an output's event, beginJob and endJob), without stack traces;
the issue's job (a NanoAOD file to a ROOT output) with them, in one process and two."""

import json
import os
import re

import pytest

from installed import MPI_ENVIRONMENT, NANOAOD, run

SIGNALS = {"segv": (11, "Segmentation fault"), "bus": (7, "Bus error"), "fpe": (8, "Floating point exception"),
           "ill": (4, "Illegal instruction"), "abrt": (6, "Aborted")}
EVENT = r", lane \d+, event \d+:\d+:\d+\)"
# Where the crash strikes: the job's SPECs, and what the line says ran (a regular expression).
PLACES = {
    "module event": (["--module", "crash:place=event"], r"module 'crash' \(plugin 'crash', event" + EVENT),
    "module construction": (["--module", "crash:place=construction"], r"module 'crash' \(plugin 'crash', construction\)"),
    "module beginJob": (["--module", "crash:place=beginjob"], r"module 'crash' \(plugin 'crash', beginJob\)"),
    "module endJob": (["--module", "crash:place=endjob"], r"module 'crash' \(plugin 'crash', endJob\)"),
    "source construction": (["--source", "crash-source:place=construction"],
                            r"source \(plugin 'crash-source', construction\)"),
    "source next": (["--source", "crash-source:place=next"], r"source \(plugin 'crash-source', source next, lane \d+\)"),
    "output event": (["--output", "crash-output:place=event"],
                     r"module 'crash-output' \(plugin 'crash-output', event" + EVENT),
    "output beginJob": (["--output", "crash-output:place=beginjob"],
                        r"module 'crash-output' \(plugin 'crash-output', beginJob\)"),
    "output endJob": (["--output", "crash-output:place=endjob"],
                      r"module 'crash-output' \(plugin 'crash-output', endJob\)"),
}
TRACE_HEADING = re.compile(r"lanes: (rank \d+: )?stack trace of thread (\d+) \(pid (\d+)\):$")


def crash_job(installed, place, *args, cwd, signal="segv", trace=False, launcher=()):
    """A job of the crash plugins that dies at `place` of `signal`."""
    job, _ = PLACES[place]
    job = [arg + f",signal={signal}" if arg.startswith("crash") else arg for arg in job]
    base = [] if "--source" in [*job, *map(str, args)] else ["--source", "crash-source"]
    env = {} if trace else {"LANES_NO_STACKTRACE": "1"}
    if launcher:
        env.update(MPI_ENVIRONMENT)
    return run(installed, "run", "-t", "2", "-n", "50", "--plugin-library", installed.crash, *base, *job, *args,
               cwd=cwd, env=env, launcher=launcher)


def said(place, signal="segv"):
    """The line, after `lanes: error: ` and a prefix, as a regular expression."""
    number, name = SIGNALS[signal]
    return rf"signal {number} \({name}\) in {PLACES[place][1]} on thread (\d+)"


def split_traces(stderr):
    """stderr's lines but the stack traces', and each trace by the pid it names (its heading, then a line a
    frame)."""
    lines, traces, trace = [], {}, None
    for line in stderr.splitlines():
        if heading := TRACE_HEADING.match(line):
            trace = traces.setdefault(heading.group(3), [])
        elif not (trace is not None and re.match(r"  #\d+ ", line)):
            trace = None
        (lines if trace is None else trace).append(line)
    return lines, traces


@pytest.mark.parametrize("signal", SIGNALS)
def test_every_signal_in_a_module_names_it_in_one_line(installed, signal, tmp_path):
    result = crash_job(installed, "module event", cwd=tmp_path, signal=signal)
    assert result.returncode == -SIGNALS[signal][0], result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and re.fullmatch("lanes: error: " + said("module event", signal), lines[0]), lines


@pytest.mark.parametrize("place", [place for place in PLACES if place != "module event"])
def test_a_crash_in_every_place_names_what_ran_in_one_line(installed, place, tmp_path):
    result = crash_job(installed, place, cwd=tmp_path)
    assert result.returncode == -11, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and re.fullmatch("lanes: error: " + said(place), lines[0]), lines


def assert_stack_trace(traces, thread, pid):
    """`traces` holds a stack trace of thread `thread` of process `pid`, from the module's call outwards."""
    trace = traces[pid]
    assert TRACE_HEADING.match(trace[0]).group(2) == thread, trace
    frames = trace[1:]
    assert "Crash::strike" in frames[0] and "(libcrash.so+0x" in frames[0], trace  # symbolised, from the fault
    assert any("CrashModule::analyze" in frame for frame in frames), trace
    assert any("lanes::detail::Lane::" in frame and "(lanes+0x" in frame for frame in frames), trace


def test_the_issues_module_crash_names_the_module_and_event_with_a_stack_trace(installed, tmp_path):
    result = crash_job(installed, "module event", "--source", f"root:file={NANOAOD}", "--output", "root:file=out.root",
                       cwd=tmp_path, trace=True)
    assert result.returncode == -11, result.stderr
    lines, traces = split_traces(result.stderr)
    assert len(lines) == 1 and len(traces) == 1, result.stderr
    line = re.fullmatch("lanes: error: " + said("module event"), lines[0])
    assert line, lines
    assert_stack_trace(traces, line.group(1), next(iter(traces)))
    assert not (tmp_path / "out.root").exists()


def test_a_workers_crash_is_named_by_its_parent_and_listed_under_the_module(installed, tmp_path):
    result = crash_job(installed, "module event", "--processes", 2, "--source", f"root:file={NANOAOD}", "--output",
                       "root:file=out.root", "--report", "report.json", cwd=tmp_path, trace=True)
    assert result.returncode == 1, result.stderr
    lines, traces = split_traces(result.stderr)
    errors = [line for line in lines if line.startswith("lanes: ")]
    assert len(errors) == 1, result.stderr
    line = re.fullmatch(r"lanes: error: (worker-\d+) \(pid (\d+)\) killed by " + said("module event") + ".*", errors[0])
    assert line, errors
    part, pid, thread = line.groups()
    assert_stack_trace(traces, thread, pid)  # the worker's own, on the job's stderr
    report = json.loads((tmp_path / "report.json").read_text())
    worker = next(w for w in report["workers"] if str(w["pid"]) == pid)
    crash = worker["crash"]
    assert crash["module"] == "crash" and crash["plugin"] == "crash" and crash["transition"] == "event"
    assert crash["signal"] == 11 and not crash["reading"] and f"event {crash['event']})" in errors[0]
    crashes = next(m for m in report["modules"] if m["label"] == "crash")["crashes"]
    assert {"part": worker["part"], "pid": int(pid), "signal": 11, "transition": "event", "lane": crash["lane"],
            "event": crash["event"]} in crashes
    assert not (tmp_path / "out.root").exists()


@pytest.mark.parametrize("place", ["source next", "output event"])
def test_a_workers_crash_in_the_source_or_an_output_is_named_by_its_parent(installed, place, tmp_path):
    result = crash_job(installed, place, "--processes", 2, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and re.fullmatch(r"lanes: error: worker-\d+ \(pid \d+\) killed by " + said(place) + ".*",
                                            lines[0]), lines


def test_an_mpi_rank_names_the_module_and_event(installed, tmp_path):
    if os.environ.get("LANES_MPI") != "1":
        pytest.skip("this lanes is built without MPI")
    result = crash_job(installed, "module event", "--chunk", 10, cwd=tmp_path,
                       launcher=("mpirun", "--oversubscribe", "-np", "2"))
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.startswith("lanes: error: ")]
    assert errors and all(re.fullmatch(r"lanes: error: rank \d: " + said("module event"), e) for e in errors), errors
