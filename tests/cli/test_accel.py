"""`lanes run --accel ... --accel-strategy ...` end to end, on the hlt-like menu."""

import pytest

from conftest import REPO
from test_bad_input import assert_one_line_error

MENU = REPO / "examples" / "hlt-like.toml"
STRATEGIES = ["sync-single", "sync-multi", "external-worker", "external-worker-d2h", "waiting-pool"]
HOST_RESULTS = ["pixelVertices", "ecalClusters", "ecalTiming", "hcalRecHits"]  # copied device->host


def result_sums(report):
    details = {m["label"]: m.get("details", {}) for m in report["modules"]}
    return {label: (details[label]["results"], details[label]["result_sum"]) for label in HOST_RESULTS}


@pytest.fixture(scope="module")
def cpu_sums(tmp_path_factory):
    from conftest import run_lanes

    result = run_lanes("run", "--menu", MENU, "-n", "20", "-t", "2", "--accel", "none", cwd=tmp_path_factory.mktemp("cpu"))
    assert result.returncode == 0, result.stderr
    return result_sums(result.report)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_gives_the_cpu_products(lanes, cpu_sums, strategy):
    result = lanes("run", "--menu", MENU, "-n", "20", "-t", "2", "-l", "3",
                   "--accel", "emulated:launch=1e-6", "--accel-strategy", strategy)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == 20
    assert result_sums(result.report) == cpu_sums
    tracks = next(m for m in result.report["modules"] if m["label"] == "pixelTracks")
    assert {key: tracks["details"][key] for key in ("backend", "strategy")} == {"backend": "emulated",
                                                                                 "strategy": strategy}
    # What its calls enqueued, for `lanes model`: a kernel a tenth of its 3 ms of CPU work, its input already there.
    device = tracks["details"]["device"]
    assert device["calls"] == 20 and device["kernel_s"] == pytest.approx(3e-4, rel=1e-6)
    assert device["copies_to_device"] == 0 and device["to_host"] is False


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_device_fault_fails_the_job_naming_module_and_event(lanes, strategy):
    result = lanes("run", "-n", "30", "--source", "synthetic:size.raw=1000",
                   "--module", "accel:label=unpack,consumes=raw,produces.digis=100,time=1e-5,fail-at=9",
                   "--module", "accel:label=fit,consumes=digis,produces.fit=10,time=1e-5,to-host=true",
                   "--output", "dummy:keep=fit", "--accel", "emulated", "--accel-strategy", strategy)
    assert result.returncode == 1, result.stderr
    assert "device fault injected in the kernel of module 'unpack' at event 1:1:9" in result.stderr
    assert result.report["failed"] is True


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--accel", "gpu"], ["unknown accelerator backend 'gpu'"]),
        (["--accel", "emulated", "--accel-strategy", "async"], ["unknown accelerator strategy 'async'", "waiting-pool"]),
        (["--accel", "emulated:slots=0"], ["--accel", "option 'slots'"]),
        (["--accel", "emulated:h2d=fast"], ["--accel", "option 'h2d'", "'fast'"]),
        (["--accel", "emulated:speed=2"], ["unknown option 'speed'"]),
        (["--accel", "emulated", "--accel-strategy", "waiting-pool:threads=0"], ["option 'threads'"]),
        (["--module", "accel:consumes=x"], ["plugin 'accel'", "produces"]),
    ],
)
def test_bad_accelerator_options(lanes, args, fragments):
    assert_one_line_error(lanes("run", "-n", "5", *args, report=False), *fragments)


def test_plugins_lists_the_accelerator_module(lanes):
    result = lanes("plugins")
    assert result.returncode == 0
    assert "accel" in result.stdout and "fail-at" in result.stdout
