"""Bad options and numbers: each is refused before anything runs, exit 2, in one readable line."""

import os

import pytest

from faults import assert_one_line_error, run_limited

HUGE = "9" * 300  # the option parser must not echo it whole
PUS = os.cpu_count() or 1
EMPTY = ["--source", "empty:events=10"]


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["-n", "-1"], ["--events", "whole number", "'-1'"]),
        (["-n", HUGE], ["--events", "(300 characters)"]),
        (["-n", "9223372036854775808"], ["--events", "9223372036854775807"]),
        (["-n", "1.5"], ["--events", "'1.5'"]),
        (["-t", HUGE], ["--threads", "(300 characters)"]),
        (["-t", str(64 * PUS + 1)], ["threads", f"{64 * PUS}", "PUs"]),
        (["-t", "1", "-l", "65"], ["lanes 65", "64 x the 1 threads"]),
        (["-l", "0"], ["--lanes", "'0'"]),
        (["--processes", str(64 * PUS + 1), "-t", "1"], ["--processes", "PUs"]),
        (["--processes", "2", "--chunk", "0"], ["--chunk", "'0'"]),
        (["--processes", "2", "--chunk", "10000000000"], ["--chunk", "1000000000"]),
        (["--processes", "2", "-n", "10", "--events-before-fork", "11"], ["--events-before-fork 11", "10 events"]),
        (["--progress", "0"], ["--progress", "seconds > 0"]),
        (["--progress", "soon"], ["--progress", "'soon'"]),
        (["-n", "5", "--endless"], ["--endless", "-n 5"]),
    ],
)
def test_bad_numbers(tmp_path, args, fragments):
    result = run_limited("run", *EMPTY, *args, cwd=tmp_path, report=False)
    assert_one_line_error(result, *fragments)
    assert len(result.stderr) < 300, result.stderr


@pytest.mark.parametrize(
    "spec, fragments",
    [
        ("empty:repeat=0", ["repeat", "from 1 to 100000000", "'0'"]),
        (f"empty:events=10,repeat={HUGE}", ["repeat", "(300 characters)"]),
        ("synthetic:size.a=2000000000000", ["size.a", "1 TiB"]),
        ("synthetic:size.a=10,count=100000000", ["count", "1000000"]),
        ("synthetic:size.a=10,events=-3", ["events", "got -3"]),
    ],
)
def test_spec_numbers_out_of_range(tmp_path, spec, fragments):
    assert_one_line_error(run_limited("run", "-n", "5", "--source", spec, cwd=tmp_path, report=False), *fragments)


@pytest.mark.parametrize(
    "module, fragments",
    [
        ("producer:produces.x=1,concurrency=limited,limit=100000", ["limit", "4096"]),
        ("offload:produces.x=1,threads=1000000", ["threads", "4096"]),
        (f"fault:at={HUGE}", ["option 'at'", "(300 characters)"]),
    ],
)
def test_module_numbers_out_of_range(tmp_path, module, fragments):
    result = run_limited("run", "-n", "5", *EMPTY, "--module", module, cwd=tmp_path, report=False)
    assert_one_line_error(result, *fragments)


@pytest.mark.parametrize(
    "source",
    ["empty", "synthetic:size.a=10", "empty:events=10,repeat=5", "synthetic:size.a=10,events=3,repeat=2"],
)
def test_a_job_without_end_must_be_asked_for(tmp_path, source):
    result = run_limited("run", "-n", "0", "--source", source, "--output", "dummy", cwd=tmp_path, report=False)
    assert_one_line_error(result, "never ends", "-n is 0", "--endless")


def test_an_endless_job_asked_for_runs_until_stopped(tmp_path):
    result = run_limited("run", "-n", "0", "--endless", "-t", "2", "--source", "empty", "--module",
                         "fault:at=30,action=interrupt", "--output", "dummy", cwd=tmp_path)
    assert result.returncode == 130, result.stderr
    assert result.report["events"] >= 30


def test_a_source_that_ends_needs_no_endless(tmp_path):
    result = run_limited("run", "-n", "0", "--source", "empty:events=7", "--output", "dummy", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == 7


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--source", ""], ["empty SPEC"]),
        (["--source", "synthetic:size.a=1,,size.b=2"], ["empty option", "synthetic:size.a=1,,size.b=2"]),
        (["--source", "synthetic:size.a=1,"], ["empty option"]),
        (["--source", "synthetic:size.a=1,size.a=2"], ["option 'size.a' is given 2 times", "'1', '2'"]),
        (["--source", "empty:events=1,events=2"], ["option 'events' is given 2 times"]),
        (["--source", "empty:events=5,repeat=2,repeat=3"], ["option 'repeat' is given 2 times"]),
        (["--module", "producer:label=,produces.x=1"], ["label=", "empty"]),
        (["--module", "producer:label=x,produces.a=1", "--module", "filter:label=x"],
         ["two modules are labelled 'x'"]),
        (["--module", "producer:label=x,produces.a=1", "--output", "dummy:label=x"], ["two modules are labelled 'x'"]),
        (["--module", "fault:at=3,at=4"], ["option 'at' is given 2 times"]),
        (["--output", "dummy:keep=nosuch*"], ["output 'dummy'", "keep=nosuch*", "matches no product"]),
        (["--waiter", "busy:products=Nosuch_*"], ["waiter 'busy'", "products=Nosuch_*", "matches no product"]),
        (["--output", 'root:file=""'], ["plugin 'root': the value of 'file' is empty"]),
        (["--output", "root:file="], ["plugin 'root': the value of 'file' is empty"]),
    ],
)
def test_nothing_silent(tmp_path, args, fragments):
    base = ["--source", "synthetic:size.a=10,events=5"] if "--source" not in args else []
    result = run_limited("run", "-n", "5", *base, *args, cwd=tmp_path, report=False)
    assert_one_line_error(result, *fragments)
    assert result.stderr.count("plugin '") <= 1  # named once


def test_list_options_may_repeat(tmp_path):
    result = run_limited("run", "-n", "5", "--source", "synthetic:size.a=10,size.b=20",
                         "--output", "dummy:keep=a,keep=b", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == 5


@pytest.mark.parametrize("args", [["-n", "20"], ["-n", "0", "--source", "empty:events=20"]])
def test_fault_at_that_cannot_fire_is_refused_when_the_job_begins(tmp_path, args):
    source = [] if "--source" in args else ["--source", "empty"]
    result = run_limited("run", *args, *source, "--module", "fault:at=21", "--output", "dummy", cwd=tmp_path)
    assert_one_line_error(result, "module 'fault'", "beginJob", "no event is numbered 21", "1 to 20", "event number")
    assert result.report is None


def test_fault_at_the_last_event_fires(tmp_path):
    result = run_limited("run", "-n", "20", "--source", "empty", "--module", "fault:at=20", "--output", "dummy",
                         cwd=tmp_path)
    assert_one_line_error(result, "fault injected at event 20", code=1)


def test_plugins_lists_generic_options(tmp_path):
    result = run_limited("plugins", cwd=tmp_path)
    assert result.returncode == 0
    for option in ("label=", "repeat=", "select=", "keep=", "products=", "file=", "files=LIST", "'#'",
                   "event number"):
        assert option in result.stdout, option


def test_run_help_gives_examples_exit_statuses_and_signals(tmp_path):
    result = run_limited("run", "--help", cwd=tmp_path)
    assert result.returncode == 0
    for text in ("Examples:", "Exit status: 0", "128+N", "SIGTERM", "SIGHUP", "second signal", "--endless",
                 "--progress"):
        assert text in result.stdout, text
