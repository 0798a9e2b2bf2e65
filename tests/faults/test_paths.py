"""Paths that would destroy data: a file the job writes that is also one it reads or writes elsewhere is refused
before anything runs (exit 2, one line naming both uses), and the files involved are left as they were."""

import os

import pytest

from faults import NANO_FILE, assert_one_line_error, run_limited

SYNTHETIC = ["--source", "synthetic:size.a=10,events=5", "-n", "0"]


def refused(tmp_path, *args, fragments):
    result = run_limited("run", *args, cwd=tmp_path, report=False)
    assert_one_line_error(result, "are the same file", *fragments)
    return result


@pytest.fixture
def nano(tmp_path):
    """A copy of the NanoAOD file, and its size, to check that a refused job leaves it as it was."""
    copy = tmp_path / "in.root"
    copy.write_bytes(NANO_FILE.read_bytes())
    return copy


@pytest.mark.parametrize("kind", ["root", "rntuple", "parallel-root", "rntuple-parallel"])
def test_output_over_its_input(tmp_path, nano, kind):
    size = nano.stat().st_size
    refused(tmp_path, "-n", "0", "--source", f"root:file={nano}", "--output", f"{kind}:file={nano}",
            fragments=[f"output '{kind}' (file={nano})", f"the source (file={nano})", "overwrite its own input"])
    assert nano.stat().st_size == size
    assert not list(tmp_path.glob("in.root.*"))


def test_output_over_its_input_through_a_symlink(tmp_path, nano):
    link = tmp_path / "link.root"
    link.symlink_to(nano)
    refused(tmp_path, "-n", "0", "--source", f"root:file={nano}", "--output", f"root:file={link}",
            fragments=[f"(file={link})", f"(file={nano})"])


def test_output_over_its_input_through_a_hard_link(tmp_path, nano):
    other = tmp_path / "sub"
    other.mkdir()
    hard = other / "hard.root"
    os.link(nano, hard)
    refused(tmp_path, "-n", "0", "--source", f"root:file={hard}", "--output", f"rntuple:file={nano}",
            fragments=[f"(file={hard})", f"(file={nano})"])


def test_output_over_an_input_named_by_a_relative_path(tmp_path, nano):
    (tmp_path / "sub").mkdir()
    refused(tmp_path, "-n", "0", "--source", "root:file=in.root", "--output", f"root:file={tmp_path}/./sub/../in.root",
            fragments=["(file=in.root)"])


def test_output_over_a_file_of_an_input_list(tmp_path, nano):
    listing = tmp_path / "inputs.txt"
    listing.write_text("# inputs\n\nin.root\n")
    refused(tmp_path, "-n", "0", "--source", f"root:files={listing}", "--output", f"root:file={nano}",
            fragments=[f"files={listing}", "listed", "in.root"])


def test_output_over_the_input_list(tmp_path, nano):
    listing = tmp_path / "inputs.txt"
    listing.write_text(f"{nano}\n")
    refused(tmp_path, "-n", "0", "--source", f"root:files={listing}", "--output", f"root:file={listing}",
            fragments=[f"output 'root' (file={listing})", f"the source (files={listing})"])


@pytest.mark.parametrize("second", ["out.root", "./out.root", "dir-link/out.root"])
def test_two_outputs_into_one_file_that_does_not_exist_yet(tmp_path, second):
    (tmp_path / "dir-link").symlink_to(tmp_path)
    refused(tmp_path, *SYNTHETIC, "--output", "root:file=out.root,label=a", "--output", f"rntuple:file={second},label=b",
            fragments=["output 'a' (file=out.root)", f"output 'b' (file={second})", "write it twice"])
    assert not list(tmp_path.glob("out.root*"))


def test_report_and_trace_into_one_file(tmp_path):
    refused(tmp_path, *SYNTHETIC, "--report", "r.json", "--trace", "r.json",
            fragments=["the report (--report r.json)", "the trace (--trace r.json)"])
    assert not (tmp_path / "r.json").exists()


def test_report_over_an_output(tmp_path):
    refused(tmp_path, *SYNTHETIC, "--output", "root:file=out.root", "--report", "out.root",
            fragments=["the report", "output 'root' (file=out.root)"])


def test_trace_over_the_profile_of_the_source(tmp_path):
    profile = tmp_path / "profile.json"
    profile.write_text('{"products": [{"label": "a", "bytes_mean": 10}]}')
    refused(tmp_path, "-n", "5", "--source", f"synthetic:profile={profile}", "--trace", str(profile),
            fragments=["the trace", f"the source (profile={profile})"])
    assert "products" in profile.read_text()


def test_report_over_the_menu(tmp_path):
    menu = tmp_path / "job.toml"
    menu.write_text("[source]\nplugin = 'empty'\nevents = 3\n")
    refused(tmp_path, "--menu", menu, "--report", menu, fragments=["the menu", "the report"])
    assert "plugin" in menu.read_text()


def test_output_over_an_event_times_file(tmp_path):
    times = tmp_path / "times.txt"
    times.write_text("0\n0\n")
    refused(tmp_path, "-n", "2", "--source", "synthetic:size.a=10", "--waiter", f"event-time:file={times}",
            "--output", f"root:file={times}", fragments=["waiter 'event-time'", f"(file={times})"])


def test_multi_process_job_is_refused_too(tmp_path, nano):
    refused(tmp_path, "--processes", "2", "-t", "1", "-n", "0", "--source", f"root:file={nano}",
            "--output", f"root:file={nano}", fragments=["overwrite its own input"])
    assert not list(tmp_path.glob("in.worker-*"))


def test_distinct_files_run(tmp_path):
    result = run_limited("run", *SYNTHETIC, "--output", "dummy", "--trace", "trace.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "trace.json").exists()
