"""Runs and luminosity blocks through the ROOT sources and outputs, end to end: two NanoAOD-like files with
LuminosityBlocks and Runs trees (tests/lumis.py: a lumi that comes back, run numbers that go back, a lumi and runs
listed in both files, a row without events) read by the `root` source, with the example module putting a lumi and a
run product. Every output writes LuminosityBlocks and Runs beside Events, one row per (run, lumi) and per run, which
uproot reads back against numpy over the input. Bad ids are refused in one line.
"""

import json

import numpy as np
import pytest
import uproot

from lumis import assert_input_records, example, write_inputs, write_trees
from rootio import OUTPUTS


@pytest.fixture
def inputs(tmp_path):
    return write_inputs(tmp_path)


def source(paths, *options):
    return "root:" + ",".join([f"file={path}" for path in paths] + list(options))


@pytest.mark.parametrize("output", ["root", "parallel-root", "rntuple", "rntuple-parallel"])
def test_every_output_writes_each_lumi_and_run_once(lanes, tmp_path, inputs, output):
    result = lanes("run", "-t", 2, "-l", 4, "--concurrent-lumis", 2, "--source", source(inputs), *example(),
                   "--output", OUTPUTS[output].format("out.root"))
    assert result.returncode == 0, result.stderr
    assert_input_records(tmp_path / "out.root", tmp_path)
    report = result.report
    assert report["source"]["lumi_records"] == {"runs": 3, "lumis": 5, "rows_without_events": 1,
                                                "lumis_without_row": 0}
    [written] = [module["details"] for module in report["modules"] if module["kind"] == "output"]
    assert (written["events_written"], written["lumis_written"], written["runs_written"]) == (14, 5, 3)


def test_a_lumi_without_a_row_gets_no_products_and_says_so(lanes, tmp_path, inputs):
    """The events' ids rule: a lumi whose file's LuminosityBlocks does not list it is processed all the same, and
    its source products are written as 0; the report counts such lumis."""
    with uproot.update(inputs[1]) as file:
        del file["LuminosityBlocks"]
    result = lanes("run", "-t", 1, "--source", source(inputs), "--output", "root:file=out.root")
    assert result.returncode == 0, result.stderr
    lumis = uproot.open(tmp_path / "out.root")["LuminosityBlocks"].arrays(library="np")
    weights = dict(zip(zip(lumis["run"].tolist(), lumis["luminosityBlock"].tolist()), lumis["weight"].tolist()))
    assert weights[(3, 1)] == 0.0 and weights[(2, 3)] == 1.0  # 2:3's row in the second file is gone too
    assert result.report["source"]["lumi_records"]["lumis_without_row"] == 2  # the second file's 2:3 and 3:1


def test_a_run_or_lumi_number_0_is_refused_naming_the_file_and_entry(lanes, tmp_path):
    path = write_trees(tmp_path / "zero.root", {"Events": {
        "run": np.array([1, 1, 0], np.uint32), "luminosityBlock": np.array([1, 1, 1], np.uint32),
        "event": np.arange(1, 4, dtype=np.uint64), "x": np.zeros(3, np.float32)}})
    result = lanes("run", "-t", 1, "--source", f"root:file={path}", "--output", "root:file=out.root")
    assert result.returncode == 1
    assert result.stderr.startswith("lanes: error: ") and result.stderr.count("\n") == 1, result.stderr
    assert f"'{path}': TTree 'Events': entry 2 has run number 0 (0:1): runs and lumis count from 1" in result.stderr
    assert not (tmp_path / "out.root").exists()
    assert json.loads((tmp_path / "report.json").read_text())["failed"]
