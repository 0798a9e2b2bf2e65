"""`lanes model`: a run's report read back into the model, a prediction in a run report's shape that `lanes report`
and `lanes compare` read, the curve and its first saturation, and every bad input refused in one line."""

import json
import subprocess
from pathlib import Path

import pytest

from conftest import BINARY
from test_bad_input import assert_one_line_error

REPO = Path(__file__).resolve().parents[2]
RECONSTRUCTION = REPO / "examples" / "reconstruction.toml"
# Sleep work: a 4 ms module and a 1 ms `one` one, each on a path of its own.
ONE_MODULE_JOB = ["--source", "empty", "--module", "analyzer:label=tracking,time=0.004,work=sleep",
                  "--module", "analyzer:label=histograms,time=0.001,work=sleep,concurrency=one"]


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """A 2-thread run of a job with a `one` module, and its report."""
    directory = tmp_path_factory.mktemp("measured")
    path = directory / "run.json"
    subprocess.run([str(BINARY), "run", *ONE_MODULE_JOB, "-t", "2", "-n", "200", "--report", str(path)],
                   check=True, capture_output=True)
    return path


def test_the_report_carries_the_schedule_and_the_call_times(measured):
    report = json.loads(measured.read_text())
    schedule = report["schedule"]
    assert schedule["source"] == {"replicated": True, "reads": "inline"}
    labels = [m["label"] for m in report["modules"]]
    histograms = schedule["modules"][labels.index("histograms")]
    assert histograms == {}  # a `one` module with no prerequisite: every key its default
    assert [p["name"] for p in schedule["paths"]] == ["tracking", "histograms"]
    first, *counts = report["call_times"]["modules"][labels.index("tracking")]["event"]
    assert report["call_times"]["buckets_per_octave"] == 8 and sum(counts) == 200
    assert first in (-64, -63)  # 4 ms of sleep and the OS's slack: 8 log2(4.05e-3) = -63.6
    assert report["modules"][labels.index("tracking")]["details"] == {"work": "sleep"}


def test_a_thousand_products_keep_the_report_small(lanes):
    """The default job (947 products, a waiter each, an output that keeps all): its schedule lists each output's
    products as runs, and 8 buckets to an octave keep each call's histogram to a few dozen counts."""
    result = lanes("run", "-n", "50", "-t", "2")
    assert result.returncode == 0, result.stderr
    out = result.report["schedule"]["modules"][-1]
    assert out["source"] == [[0, 947]]
    histograms = [h for m in result.report["call_times"]["modules"] for h in m.values()]
    assert len(histograms) >= 947
    assert sum(len(h) for h in histograms) / len(histograms) < 64  # 126 kB in all, unindented, at load 2


def test_a_prediction_is_a_run_report_with_its_curve(lanes, measured, tmp_path):
    result = lanes("model", measured, "--vary", "threads=1,2,4,8", "-n", "400", "--measured", measured,
                   "--report", tmp_path / "p.json")
    assert result.returncode == 0, result.stderr
    predicted = json.loads((tmp_path / "p.json").read_text())
    for key in ("threads", "lanes", "events", "wall_s", "events_per_s", "cpu_efficiency", "modules", "thread_time",
                "path_report", "event_times", "provenance"):
        assert key in predicted
    model = predicted["model"]
    assert model["predicted"] is True and model["input"]["threads"] == 2
    assert [p["threads"] for p in model["curve"]["points"]] == [1, 2, 4, 8]
    assert [(m["threads"], m["report"]) for m in model["measured"]] == [(2, str(measured))]
    # 5 ms an event on 1 thread, twice that on 2, ... up to the 1 ms `one` module's cap of 1000 events/s.
    rates = [p["events_per_s"] for p in model["curve"]["points"]]
    assert rates == sorted(rates) and 1.7 * rates[0] < rates[1] and max(rates) < 1000
    assert model["saturation"]["name"] == "histograms"
    # Busy 80% of the time at 4 threads (more where the run's calls took longer than asked), 100% at 8.
    saturated = model["saturation"]["threads"]
    assert saturated in (4, 8)
    assert f"first to saturate: histograms (one), at {saturated} threads" in result.stdout
    assert predicted["provenance"]["command"][1] == "model"


def test_compare_and_report_read_a_prediction(lanes, measured, tmp_path):
    assert lanes("model", measured, "-t", "4", "--report", tmp_path / "p.json", "--html", tmp_path / "p.html").returncode == 0
    page = (tmp_path / "p.html").read_text()
    assert 'id="chart-model"' in page and 'id="model"' in page
    compared = lanes("compare", measured, tmp_path / "p.json", "--json")
    assert compared.returncode == 0, compared.stderr
    figures = {f["name"]: f for f in json.loads(compared.stdout)["figures"]}
    assert figures["threads"]["b"] == 4


def test_a_trace_replays_each_events_calls(lanes, tmp_path):
    run = lanes("run", *ONE_MODULE_JOB, "-t", "2", "-n", "50", "--trace", tmp_path / "trace.json")
    assert run.returncode == 0, run.stderr
    (tmp_path / "run.json").write_text(json.dumps(run.report))
    result = lanes("model", tmp_path / "run.json", "--trace", tmp_path / "trace.json", "--report", tmp_path / "p.json")
    assert result.returncode == 0, result.stderr
    trace = json.loads((tmp_path / "p.json").read_text())["model"]["trace"]
    assert trace["events"] == 50 and trace["path"].endswith("trace.json")
    assert_one_line_error(lanes("model", tmp_path / "run.json", "--trace", tmp_path / "run.json"), "is not a lanes trace")


def test_a_menu_with_an_accelerator_is_modelled_with_its_device(lanes, tmp_path):
    run = lanes("run", "--menu", REPO / "examples" / "hlt-like.toml", "-t", "2", "-n", "60", "--accel",
                "emulated:slots=2", "--accel-strategy", "waiting-pool")
    assert run.returncode == 0, run.stderr
    assert run.report["accel"]["strategy"] == "waiting-pool" and run.report["accel"]["slots"] == 2
    pixel = next(m for m in run.report["modules"] if m["label"] == "pixelTracks")
    assert pixel["details"]["device"]["kernel_s"] == pytest.approx(3e-4, rel=1e-6)
    (tmp_path / "run.json").write_text(json.dumps(run.report))  # the next command's report.json goes
    result = lanes("model", tmp_path / "run.json", "-t", "16", "-p", "2", "--devices", "1", "--report", tmp_path / "p.json")
    assert result.returncode == 0, result.stderr
    predicted = json.loads((tmp_path / "p.json").read_text())
    assert predicted["processes"] == 2
    assert any(r["kind"] == "kernel slots" and r["capacity"] == 2 for r in predicted["model"]["resources"])


def test_a_multi_process_run_is_modelled_from_its_workers(lanes, tmp_path):
    run = lanes("run", *ONE_MODULE_JOB, "-t", "1", "-p", "2", "-n", "40")
    assert run.returncode == 0, run.stderr
    (tmp_path / "run.json").write_text(json.dumps(run.report))
    result = lanes("model", tmp_path / "run.json")
    assert result.returncode == 0, result.stderr
    assert "[1 threads, 1 lanes, 2 processes]" in result.stdout


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--vary", "threads"], ["--vary 'threads'", "AXIS=LIST"]),
        (["--vary", "cores=1,2"], ["the axis must be threads, lanes or processes"]),
        (["--vary", "threads=1,x"], ["whole number"]),
        (["--vary", "threads=0"], ["whole number"]),
        (["--distribution", "round-robin"], ["--distribution applies to several processes"]),
        (["--chunk", "5"], ["--chunk applies to several processes"]),
        (["-p", "2", "--distribution", "round-robin", "--chunk", "5"], ["--chunk applies to the queue distribution"]),
        (["--devices", "2"], ["--devices applies to accelerator modules"]),
        (["--vary", "lanes=1,2", "-l", "2"], ["both set the lanes"]),
        (["-t", "0"], ["-t"]),
        (["-t", "100000"], ["at most 65536 threads"]),
        (["-t", "1000", "-l", "1000000", "-p", "60"], ["too many to simulate"]),
        (["--wake-latency", "-1"], ["--wake-latency"]),
        (["--report", "/no/such/dir/p.json"], ["/no/such/dir"]),
        (["--measured", "/no/such/run.json"], ["cannot read /no/such/run.json"]),
    ],
)
def test_bad_options(lanes, measured, args, fragments):
    assert_one_line_error(lanes("model", measured, *args), *fragments)


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("{", ["is not JSON"]),
        ("[]", ["is not a lanes run report"]),
        ('{"events_per_s": 1, "wall_s": 1, "events": 5, "modules": []}', ["written by a lanes older than"]),
        ('{"events_per_s": 0, "wall_s": 1, "events": 0}', ["processed no events"]),
        ('{"events_per_s": 1, "wall_s": 1, "events": 5, "failed": true, "error": "boom"}', ["a job that failed (boom)"]),
    ],
)
def test_bad_reports(lanes, tmp_path, text, fragments):
    (tmp_path / "bad.json").write_text(text)
    assert_one_line_error(lanes("model", tmp_path / "bad.json"), *fragments)


def test_a_missing_report(lanes):
    assert_one_line_error(lanes("model", "/no/such/run.json"), "cannot read /no/such/run.json")
