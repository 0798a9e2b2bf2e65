"""The stall graph and the memory plot (lanes.tools.lanes_plots) from a real trace and report: PNGs of a sensible size that
are not blank, the stall graph with every lane and every state the job had; bad input refused."""

import json
import struct
import subprocess
import sys

import pytest

from conftest import BINARY


from lanes.tools.lanes_plots.stall_graph import lane_intervals, main, stall_graph  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def distinct_rows(path):
    """How many distinct scan lines the image has: a blank image has one."""
    import matplotlib.image
    pixels = matplotlib.image.imread(path)
    return len({row.tobytes() for row in pixels})


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    directory = tmp_path_factory.mktemp("stall-graph")
    path = directory / "trace.json"
    # A `one` analyzer for queue waits, external work on a pool for external waits, four lanes on two threads.
    completed = subprocess.run(
        [str(BINARY), "run", "-t", "2", "-l", "4", "-n", "40", "--source", "empty",
         "--module", "offload:time=1e-3,produces.x=10,label=gpu",
         "--module", "analyzer:time=1e-3,concurrency=one,consumes=x,label=serial",
         "--output", "dummy", "--trace", str(path)],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert completed.returncode == 0, completed.stderr
    return path


def test_trace_has_every_state_per_lane(trace):
    lanes = lane_intervals(json.loads(trace.read_text()))
    assert sorted(lanes) == [0, 1, 2, 3]
    states = set()
    for lane in lanes.values():
        states |= set(lane)
    assert states == {"running", "idle", "waiting for external work", "waiting for a serialised module"}


def test_png_is_drawn_not_blank(trace, tmp_path):
    png = tmp_path / "stalls.png"
    assert stall_graph(trace, png) == 4
    width, height = png_size(png)
    assert 600 <= width <= 3000 and 150 <= height <= 2000
    assert distinct_rows(png) > 20


def test_command_line_writes_the_png(trace, tmp_path):
    png = tmp_path / "cli.png"
    completed = subprocess.run([sys.executable, "-m", "lanes.tools.lanes_plots.stall_graph", str(trace), str(png)],
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert png.read_bytes()[:8] == PNG_SIGNATURE


def test_a_trace_without_calls_is_refused(tmp_path, capsys):
    empty = tmp_path / "empty.json"
    empty.write_text('{"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "lanes"}}]}')
    assert main([str(empty), str(tmp_path / "no.png")]) == 1
    assert "no call with a lane" in capsys.readouterr().err
    assert not (tmp_path / "no.png").exists()


def test_a_missing_trace_is_refused(tmp_path, capsys):
    assert main([str(tmp_path / "missing.json"), str(tmp_path / "no.png")]) == 1
    assert capsys.readouterr().err.startswith("stall_graph: error:")


def test_memory_plot_draws_the_reports_samples(tmp_path):
    from lanes.tools.lanes_plots.memory_plot import memory_plot
    report = tmp_path / "report.json"
    completed = subprocess.run([str(BINARY), "run", "-t", "2", "-n", "200", "--source", "empty",
                                "--module", "analyzer:time=1e-3", "--output", "dummy", "--report", str(report)],
                               capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert completed.returncode == 0, completed.stderr
    png = tmp_path / "memory.png"
    samples = memory_plot(report, png)
    assert samples == len(json.loads(report.read_text())["memory"]["samples"]) >= 2
    width, height = png_size(png)
    assert 400 <= width <= 2000 and 200 <= height <= 1500
    assert distinct_rows(png) > 20


def test_memory_plot_refuses_a_report_without_samples(tmp_path):
    from lanes.tools.lanes_plots.memory_plot import main as memory_main
    report = tmp_path / "old.json"
    report.write_text('{"events": 1}')
    assert memory_main([str(report), str(tmp_path / "no.png")]) == 1
    assert not (tmp_path / "no.png").exists()


def test_memory_plot_draws_a_line_per_worker_of_a_multi_process_job(tmp_path):
    from lanes.tools.lanes_plots.memory_plot import memory_plot
    report = tmp_path / "report.json"
    completed = subprocess.run([str(BINARY), "run", "--processes", "2", "-t", "1", "-n", "100", "--source", "empty",
                                "--module", "analyzer:time=1e-3", "--output", "dummy", "--report", str(report)],
                               capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert completed.returncode == 0, completed.stderr
    workers = json.loads(report.read_text())["memory"]["workers"]
    png = tmp_path / "memory.png"
    assert memory_plot(report, png) == sum(len(w["samples"]) for w in workers) >= 4
    assert distinct_rows(png) > 20
