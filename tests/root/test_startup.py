"""The run report's `startup`: where a job's time to its first event goes, phase by phase (docs/reports.md)."""

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
