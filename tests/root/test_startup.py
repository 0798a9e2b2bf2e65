"""The run report's `startup`: where a job's time to its first event goes, phase by phase (docs/reports.md)."""

import os
import shutil
import subprocess
import time

import pytest

from conftest import BINARY
from rootio import NANO

ROOT_PHASES = ["command", "plugins", "root", "open", "layout", "construction", "first_event"]


def phases_of(report):
    return [phase["phase"] for phase in report["startup"]["phases"]]


def test_a_root_jobs_start_up_is_timed_phase_by_phase_to_its_first_event(lanes):
    result = lanes("run", "-t", "1", "-n", "1", "--source", NANO.spec(), "--output", "dummy")
    ended = time.monotonic()
    assert result.returncode == 0, result.stderr
    startup = result.report["startup"]
    assert phases_of(result.report) == ROOT_PHASES
    seconds = [phase["s"] for phase in startup["phases"]]
    assert all(s >= 0 for s in seconds)
    assert startup["loading_s"] >= 0
    assert startup["to_first_event_s"] == pytest.approx(startup["loading_s"] + sum(seconds))
    # main_clock_s is CLOCK_MONOTONIC's, as this process reads it: the first event ended before the job did.
    assert 0 < startup["main_clock_s"] + sum(seconds) <= ended


def test_a_job_that_reads_no_root_file_has_no_root_phases(lanes):
    result = lanes("run", "-t", "1", "-n", "1")
    assert result.returncode == 0, result.stderr
    assert phases_of(result.report) == ["command", "plugins", "construction", "first_event"]


def test_lanes_loads_none_of_roots_histogram_and_matrix_libraries():
    # They came with ROOT's RNTupleInspector (libROOTNTupleUtil), which `lanes inspect` used for an RNTuple's
    # sizes: two more libraries and their dictionaries in every lanes process's start-up, for one command.
    needed = subprocess.run(["ldd", str(BINARY)], capture_output=True, text=True, check=True).stdout
    assert "libCore.so" in needed  # ROOT is linked, and ldd lists it
    for library in ("libROOTNTupleUtil.so", "libHist.so", "libMatrix.so"):
        assert library not in needed


ROOT_PROBE_ANSWERS = ("ROOT_LDSYSPATH", "CLING_LDSYSPATH", "CLING_CPPSYSINCL")


def probes_run_by(command, tmp_path):
    """The calls of `c++` and `ls` that `command` makes: ROOT's start-up probes run them (`LD_DEBUG=libs ... ls`
    for the dynamic linker's search path, `c++ -xc++ -E -v /dev/null` for the C++ library's include directories).
    Stand-ins first on the PATH note each call, then run the real tool."""
    tools, log = tmp_path / "tools", tmp_path / "probes.log"
    tools.mkdir()
    for tool in ("c++", "ls"):
        stand_in = tools / tool
        stand_in.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\nexec "{shutil.which(tool)}" "$@"\n')
        stand_in.chmod(0o755)
    env = {name: value for name, value in os.environ.items() if name not in ROOT_PROBE_ANSWERS}
    env["PATH"] = f"{tools}:{env['PATH']}"
    completed = subprocess.run([str(c) for c in command], capture_output=True, text=True, env=env, cwd=tmp_path,
                               timeout=120)
    assert completed.returncode == 0, completed.stderr
    return log.read_text().splitlines() if log.exists() else []


def test_roots_own_start_up_runs_its_probes(tmp_path):
    # ROOT's floor (bench/floor) gives ROOT no answers: the stand-ins see both probes, so the test below can fail.
    calls = probes_run_by([BINARY.parent / "root_startup_floor", NANO.path], tmp_path)
    assert any(call.startswith("c++ -xc++ -E -v") for call in calls), calls
    assert any(call.startswith("ls") for call in calls), calls


def test_a_root_job_gives_root_the_answers_to_its_start_up_probes(tmp_path):
    # 7-9 ms of a job's 0.2 s to its first event on this file (plugins/root/RootSupport.cpp).
    calls = probes_run_by([BINARY, "run", "-t", "1", "-n", "1", "--source", NANO.spec(), "--output", "dummy"],
                          tmp_path)
    assert calls == []
