"""`lanes pin` and `lanes run --pin`: commands and job threads confined to the PUs a strategy picks."""

import os
import sys

import pytest
from nodecli import assert_one_line_error, needs_two_pus

PRINT_AFFINITY = "import os; print(','.join(map(str, sorted(os.sched_getaffinity(0)))))"


def test_pin_confines_the_command(lanes):
    result = lanes("pin", "--strategy", "numa-compact", "--cores", "1", "--", sys.executable, "-c", PRINT_AFFINITY)
    assert result.returncode == 0, result.stderr
    pus = result.stdout.strip().split(",")
    assert len(pus) == 1
    assert f"numa-compact: PUs {pus[0]}" in result.stderr


def test_pin_none_leaves_the_command_unconfined(lanes):
    result = lanes("pin", "--strategy", "none", "--", sys.executable, "-c", PRINT_AFFINITY)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ",".join(map(str, sorted(os.sched_getaffinity(0))))


def test_pin_exits_with_the_command_status(lanes):
    assert lanes("pin", "--", sys.executable, "-c", "raise SystemExit(7)").returncode == 7
    assert lanes("pin", "--", sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)").returncode == 143


def test_pin_passes_arguments_without_a_shell(lanes, tmp_path):
    result = lanes("pin", "--", "echo", "$(touch pwned)", ";", "`id`")
    assert result.stdout == "$(touch pwned) ; `id`\n"
    assert not (tmp_path / "pwned").exists()


def test_pin_on_a_synthetic_topology_only_plans(lanes, tmp_path):
    result = lanes("pin", "--strategy", "numa-spread", "--cores", "4",
                   "--topology", "synthetic:pack:2 numa:1 core:8 pu:2", "--", "touch", tmp_path / "ran")
    assert result.returncode == 0, result.stderr
    assert "not run" in result.stdout
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--strategy", "tight", "--", "true"], ["unknown pinning strategy 'tight'"]),
        (["--cores", str(os.cpu_count() + 1), "--", "true"], [f"{os.cpu_count() + 1} PUs on separate cores"]),
        (["--", "/no/such/command"], ["cannot run '/no/such/command': No such file or directory"]),
    ],
)
def test_pin_bad_input(lanes, args, fragments):
    assert_one_line_error(lanes("pin", *args), *fragments)


def test_pin_needs_a_command(lanes):
    assert lanes("pin", "--cores", "1").returncode == 2


@needs_two_pus
def test_run_pins_each_thread_to_its_own_pu(lanes):
    result = lanes("run", "-t", "2", "-n", "200", "--pin", "numa-compact")
    assert result.returncode == 0, result.stderr
    pinning = result.report["pinning"]
    assert pinning["strategy"] == "numa-compact"
    assert len(pinning["pus"]) == 2 and len(set(pinning["pus"])) == 2
    assert 1 <= pinning["threads_pinned"] <= 2
    assert pinning["error"] == ""
    assert "threads pinned by numa-compact to PUs" in result.stdout


def test_run_without_pin_reports_no_pinning(lanes):
    result = lanes("run", "-t", "1", "-n", "10")
    assert result.returncode == 0, result.stderr
    assert "pinning" not in result.report


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--pin", "tight"], ["unknown pinning strategy 'tight'"]),
        (["-t", str(os.cpu_count() + 1), "--pin", "numa-compact"], ["PUs on separate cores"]),
    ],
)
def test_run_pin_bad_input(lanes, args, fragments):
    result = lanes("run", "-n", "5", *args, report=False)
    assert_one_line_error(result, *fragments)
