"""lanes.tools.serialization_table: which products take half of the serialisation time, from a report's serialize
output (the Fermilab study's per-product table)."""

import json
import subprocess
import sys

import pytest

from conftest import BINARY, REPO


from lanes.tools import serialization_table  # noqa: E402

NANOAOD = REPO / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"


def serialize_module(products, label="serialize"):
    return {"label": label, "plugin": "serialize", "kind": "output",
            "details": {"products": [{"label": name, "calls": calls, "bytes": 10 * calls, "ns": ns}
                                     for name, calls, ns in products]}}


def report_of(*modules):
    return {"events_per_s": 1.0, "wall_s": 1.0, "modules": list(modules)}


def tool(*args):
    return subprocess.run([sys.executable, "-m", "lanes.tools.serialization_table", *map(str, args)], capture_output=True, text=True, timeout=120)


def test_products_are_ranked_with_their_cumulative_share():
    products = serialization_table.products(report_of(serialize_module([("a", 2, 100), ("b", 2, 500),
                                                                         ("c", 2, 300), ("d", 2, 100)])))
    table = serialization_table.table(products, 0.5)
    assert [r["label"] for r in table["rows"]] == ["b"]  # 500 of 1000 ns: half on its own
    assert table["half"] == 1 and table["products"] == 4 and table["total_ns"] == 1000
    every = serialization_table.table(products, 1.0)["rows"]
    assert [r["label"] for r in every] == ["b", "c", "a", "d"]
    assert [r["cumulative"] for r in every] == pytest.approx([0.5, 0.8, 0.9, 1.0])
    assert every[0]["ns_per_call"] == 250 and every[0]["bytes_per_call"] == 10


def test_a_multi_process_reports_workers_are_summed():
    worker = report_of(serialize_module([("a", 1, 100), ("b", 1, 50)]))
    merged = serialization_table.products({"events_per_s": 1, "wall_s": 1, "workers": [{"report": worker},
                                                                                         {"report": worker}]})
    assert merged == {"a": {"calls": 2, "bytes": 20, "ns": 200}, "b": {"calls": 2, "bytes": 20, "ns": 100}}


def test_several_runs_take_each_products_least_time_per_call():
    quiet = {"a": {"calls": 10, "bytes": 100, "ns": 1000}, "b": {"calls": 10, "bytes": 50, "ns": 500}}
    spiked = {"a": {"calls": 10, "bytes": 100, "ns": 1000}, "b": {"calls": 10, "bytes": 50, "ns": 5_000_500}}
    combined = serialization_table.least_of([spiked, quiet])
    assert combined == {"a": {"calls": 20, "bytes": 200, "ns": 2000}, "b": {"calls": 20, "bytes": 100, "ns": 1000}}
    assert serialization_table.table(combined, 0.5)["rows"][0]["label"] == "a"


def test_bad_input_is_one_line(tmp_path):
    (tmp_path / "none.json").write_text(json.dumps(report_of({"label": "out", "plugin": "dummy"})))
    (tmp_path / "two.json").write_text(json.dumps(report_of(serialize_module([], "s1"), serialize_module([], "s2"))))
    for args, words in [((tmp_path / "none.json",), "no serialize output"),
                        ((tmp_path / "two.json",), "several serialize outputs"),
                        ((tmp_path / "two.json", "--output", "s3"), "no serialize output 's3'"),
                        ((tmp_path / "two.json", "--output", "s1", "--share", "0"), "--share"),
                        ((tmp_path / "missing.json",), "does not exist")]:
        completed = tool(*args)
        assert completed.returncode == 2, completed
        assert completed.stderr.startswith("lanes: error: ") and words in completed.stderr, completed.stderr
        assert len(completed.stderr.strip().splitlines()) == 1


def test_a_real_serialize_job_names_the_few_products_that_take_half(tmp_path):
    report = tmp_path / "report.json"
    run = subprocess.run([str(BINARY), "run", "-t", "1", "-n", "50", "--source", f"root:file={NANOAOD}",
                          "--output", "serialize", "--report", str(report)], capture_output=True, text=True,
                         timeout=300, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    completed = tool(report, "--json")
    assert completed.returncode == 0, completed.stderr
    table = json.loads(completed.stdout)
    assert table["products"] > 900  # NanoAOD's branches, less the event ids
    assert 1 <= table["half"] == len(table["rows"]) < table["products"]
    assert table["rows"][-1]["cumulative"] >= 0.5 > (table["rows"][-2]["cumulative"] if table["half"] > 1 else 0)
    both = tool(report, report, "--json")  # the same run twice: the same table
    assert both.returncode == 0 and json.loads(both.stdout)["half"] == table["half"]
    text = tool(report, "--markdown")
    assert text.returncode == 0 and text.stdout.startswith("| rank | product |")
    assert f"{table['half']} of {table['products']} products take half" in text.stdout
