"""Analyzers written in Python (@lanes.analyzer), run inside the job by the interpreter `lanes` embeds: products as
numpy arrays over the products' own memory, results back in the result, the dimuon example bin for bin as uproot +
numpy count it, a Python exception failing its event with its traceback (and --on-error skip), the GIL's waits as
the module's stall, and what the `python` module refuses, in one line."""

import math
import pickle
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import lanes
from conftest import BINARY, REPO

sys.path.insert(0, str(REPO / "examples" / "python"))
sys.path.insert(0, str(REPO / "tests" / "install"))
import dimuon  # noqa: E402  (examples/python/dimuon.py)
from test_install import DOUBLEMU, expected_histogram  # noqa: E402



@lanes.analyzer(consumes=["number", "big_number", "weight", "flag", "floats", "nested", "text", "track"],
                results={"seen": {}, "events": 0})
def inspect_products(event, results):
    results["events"] += 1
    if results["seen"]:
        return
    for label in event.keys():
        value = event[label]
        if isinstance(value, np.ndarray):
            results["seen"][label] = ("array", value.dtype.str, value.shape, value.flags.writeable,
                                      value.flags.owndata, value.tolist())
        else:
            results["seen"][label] = (type(value).__name__, getattr(value, "type", None), str(value))
    results["id"] = (event.run, event.lumi, event.number, event.lane)


def test_products_reach_python_as_read_only_views_or_objects():
    result = lanes.Job(threads=1, events=3).source("test-products").analyzer(inspect_products).run(progress=False)
    found = result.analyzers["inspect_products"]
    assert found["events"] == 3 and found["id"][:3] == (1, 1, 1)
    seen = found["seen"]
    # numbers and vectors of numbers: read-only arrays over the product (no copy: the array owns no data)
    for label, dtype, dimensions in [("number", "<i4", 0), ("weight", "<f8", 0), ("flag", "|b1", 0),
                                     ("floats", "<f4", 1)]:
        kind, found_dtype, shape, writeable, owndata, _ = seen[label]
        assert (kind, found_dtype, len(shape), writeable, owndata) == ("array", dtype, dimensions, False, False), label
    assert seen["big_number"][1] in ("<i8", "<u8")
    # a string as str; types without a Python form as their type and size
    assert seen["text"][0] == "str"
    assert seen["nested"][0] == "Product" and seen["nested"][1].startswith("std::vector<std::vector<")
    assert seen["nested"][2].endswith("bytes=24)")
    assert seen["track"][0] == "Product" and "TestTrack" in seen["track"][1]


def test_the_python_dimuon_fills_the_histogram_that_uproot_and_numpy_count():
    job = lanes.Job(threads=2, events=0).source("rntuple", file=str(DOUBLEMU)).analyzer(dimuon.dimuon)
    result = job.run(progress=False)
    histogram = result.analyzers["dimuon"]["mass"]
    expected = expected_histogram("rntuple:file=" + str(DOUBLEMU), "Muon")
    assert list(histogram.values(flow=True)) == list(expected)
    assert result.analyzers["dimuon"]["pairs"] == expected.sum()
    row = result.modules.set_index("label").loc["dimuon"]
    assert row["plugin"] == "python" and row["concurrency"] == "one" and row["calls"] == 1000
    assert row["function"] == "dimuon:dimuon" and row["python"] == ".".join(map(str, sys.version_info[:3]))


@lanes.analyzer(consumes=["a"], results={"done": 0})
def fails_at_event_5(event, results):
    if event.number == 5:
        return 1 / 0
    results["done"] += 1


def test_a_python_exception_fails_its_event_with_the_traceback():
    job = lanes.Job(threads=2, events=20).source("synthetic", size={"a": 10}).analyzer(fails_at_event_5)
    with pytest.raises(lanes.JobError) as raised:
        job.run(progress=False)
    error = raised.value.error
    assert "module 'fails_at_event_5'" in error and "1:1:5" in error and "\n" not in error
    assert "ZeroDivisionError: division by zero (traceback: test_analyzers.py:" in error
    assert "in fails_at_event_5: return 1 / 0" in error


def test_the_skip_policy_applies_to_a_python_analyzer():
    job = lanes.Job(threads=2, events=20, on_error="skip").source("synthetic", size={"a": 10})
    result = job.analyzer(fails_at_event_5).run(progress=False)
    assert result.events == 19 and result.events_skipped == 1
    assert result.analyzers["fails_at_event_5"]["done"] == 19


KEPT = []


@lanes.analyzer(consumes=["floats"])
def keeps_an_array(event, results):
    KEPT.append(event["floats"])


def test_an_array_kept_past_its_call_fails_the_event():
    with pytest.raises(lanes.JobError, match="kept the array of 'floats' after its call"):
        lanes.Job(threads=1, events=2).source("test-products").analyzer(keeps_an_array).run(progress=False)


@lanes.analyzer(consumes=["floats"])
def asks_for_another_product(event, results):
    event["weight"]


KEPT_EVENTS = []


@lanes.analyzer(consumes=["floats"], results={"sizes": []})
def keeps_the_event(event, results):
    KEPT_EVENTS.append(event)
    results["sizes"].append(len(KEPT_EVENTS[0]))  # the first event, emptied as its call ended


def test_a_product_it_does_not_consume_is_a_key_error():
    with pytest.raises(lanes.JobError, match=r"KeyError: .*'weight' is not among the products the analyzer consumes"):
        lanes.Job(threads=1, events=1).source("test-products").analyzer(asks_for_another_product).run(progress=False)


def test_an_event_kept_past_its_call_is_empty():
    result = lanes.Job(threads=1, events=3).source("test-products").analyzer(keeps_the_event).run(progress=False)
    assert result.analyzers["keeps_the_event"]["sizes"] == [1, 0, 0]


@lanes.analyzer(consumes=["a"])
def busy_for_a_millisecond(event, results):
    start = time.perf_counter()
    while time.perf_counter() - start < 1e-3:  # spins, holding the interpreter
        pass


def test_the_interpreters_waits_are_the_modules_stall():
    job = lanes.Job(threads=2, lanes=2, events=100).source("synthetic", size={"a": 10})
    result = job.analyzer(busy_for_a_millisecond).run(progress=False)
    row = result.modules.set_index("label").loc["busy_for_a_millisecond"]
    assert row["concurrency"] == "one"
    assert row["stall_s"] > 0  # a lane waited for the interpreter the other held
    assert "interpreter_wait_s" in result.modules.columns


def test_an_analyzer_defined_in_main_runs_pickled(tmp_path):
    script = tmp_path / "main.py"
    script.write_text("import lanes\n"
                      "SCALE = 2\n"
                      "@lanes.analyzer(consumes=['a'], results={'sum': 0})\n"
                      "def doubled(event, results):\n"
                      "    results['sum'] += SCALE * int(event.number)\n"
                      "job = lanes.Job(threads=1, events=10).source('synthetic', size={'a': 1}).analyzer(doubled)\n"
                      "print(job)\n"
                      "print('sum', job.run(progress=False).analyzers['doubled']['sum'])\n")
    completed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[-1] == f"sum {2 * sum(range(1, 11))}"
    assert "# doubled: a Python analyzer defined in __main__" in completed.stdout


def run_lanes(*args, env=None, cwd=None):
    return subprocess.run([str(BINARY), *map(str, args)], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env=env, cwd=cwd)


def test_the_command_runs_a_python_file_and_pickles_its_results(tmp_path):
    results = tmp_path / "mass.pickle"
    completed = run_lanes("run", "-t", "1", "-n", "0", "--source", f"rntuple:file={DOUBLEMU}", "--module",
                          f"python:function={REPO / 'examples/python/dimuon.py'}:dimuon,results={results}")
    assert completed.returncode == 0, completed.stderr
    with open(results, "rb") as f:
        assert f and pickle.load(f)["pairs"] > 1000


@pytest.mark.parametrize("spec, message", [
    ("python", "give the analyzer once: function=FILE.py:NAME or MODULE:NAME, or pickled=PATH"),
    ("python:function=missing.py:x", "cannot load the analyzer 'missing.py:x': FileNotFoundError: missing.py is "
                                     "not a file"),
    ("python:function=math:pi", "is not an analyzer (decorate it with @lanes.analyzer), but float"),
    ("python:function=math:pi,funcion=x", "unknown option 'funcion'"),
])
def test_what_the_python_module_refuses(spec, message, tmp_path):
    completed = run_lanes("run", "-n", "1", "--source", "empty", "--module", spec, cwd=tmp_path)
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanes: error: ") and message in lines[0], completed.stderr


@pytest.mark.parametrize("fork", [[], ["--no-fork"]], ids=["fork", "no-fork"])
def test_a_python_analyzer_runs_in_one_process_only(fork, tmp_path):
    completed = run_lanes("run", "-n", "4", "--processes", "2", *fork, "--source", f"rntuple:file={DOUBLEMU}",
                          "--module", f"python:function={REPO / 'examples/python/dimuon.py'}:dimuon", cwd=tmp_path)
    assert completed.returncode == 2, completed.stderr
    assert "module 'python' is a Python analyzer, which runs in one process" in completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1, completed.stderr


def test_only_a_job_that_names_it_loads_the_python_module():
    assert "libpython" not in subprocess.run(["ldd", str(BINARY)], capture_output=True, text=True).stdout
    plain = lanes.Job(threads=1, events=5).source("synthetic", size={"a": 1}).run(progress=False)
    assert "plugin_libraries" not in plain.report
    python = lanes.Job(threads=1, events=5).source("test-products").analyzer(inspect_products)
    libraries = python.run(progress=False).report["plugin_libraries"]
    assert [Path(l["path"]).name for l in libraries] == ["liblanes_python.so"]


def test_the_decorator_refuses_what_is_no_analyzer():
    with pytest.raises(lanes.OptionError, match="consumes must be a list of product labels"):
        lanes.analyzer(consumes="Muon_pt")
    with pytest.raises(lanes.OptionError, match="results must be a dict"):
        lanes.analyzer(consumes=["a"], results=[1])
    with pytest.raises(lanes.OptionError, match="takes a @lanes.analyzer"):
        lanes.Job().analyzer(math.sqrt)
