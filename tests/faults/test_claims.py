"""One live writer per path: two jobs that would write one output (or report, trace, HTML page, scan directory) at
the same time end with one output, one refusal before any event (exit 2, one line naming the first job's pid and
host), and nothing lost; a killed job's claim blocks nobody; the final rename checks the claim again; a finished
job's file is replaced, and the summary says so. `lanes clean` removes what killed jobs left, and only that.

No sleeps: the first job holds at its first event in a `fault` module (action=wait) that creates a marker file as it
starts waiting and goes on once the test creates the file it waits for.
"""

import json
import os
import signal
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from faults import BINARY, Result, assert_one_line_error, event_count, run_limited, size_text, wait_for

SOURCE = ["--source", "test-products", "-n", "20", "-t", "1"]
REPO = Path(__file__).resolve().parents[2]


def held(marker, go):
    """A fault module that, at event 1, creates `marker` and waits until `go` exists."""
    return ["--module", f"fault:at=1,action=wait,until={go},once={marker}"]


@contextmanager
def holding_job(tmp_path, *args, name="first"):
    """Starts `lanes run ARGS` in tmp_path (stderr into NAME.err) held at its first event; yields (Popen, go): the
    job goes on once the test creates `go`. Killed (its whole group) if it still runs when the block ends."""
    marker, go = tmp_path / f"{name}.held", tmp_path / f"{name}.go"
    command = [str(BINARY), "run", *SOURCE, *held(marker, go), *[str(a) for a in args]]
    with open(tmp_path / f"{name}.err", "w") as stderr:
        process = subprocess.Popen(command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=stderr, text=True, start_new_session=True)
    try:
        wait_for(lambda: marker.exists() or process.poll() is not None, 120, f"the {name} job's first event")
        assert process.poll() is None, (tmp_path / f"{name}.err").read_text()
        yield process, go
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def finish(process, go, tmp_path, name="first"):
    """Lets a held job go on; returns (exit status, stdout, stderr)."""
    go.touch()
    stdout, _ = process.communicate(timeout=120)
    return process.returncode, stdout, (tmp_path / f"{name}.err").read_text()


def refusal(first_pid):
    return f"is being written by another lanes job (pid {first_pid} on host {socket.gethostname()}, started "


# What both jobs write: (the first job's arguments, the second's, the fragment naming it, the file).
COLLISIONS = {
    "output": (["--output", "root:file=out.root"], ["--output", "root:file=out.root,label=copy"],
               "output 'copy' (file=out.root)", "out.root"),
    "report": (["--report", "r.json"], ["--report", "r.json"], "the report (--report r.json)", "r.json"),
    "trace": (["--trace", "t.json"], ["--trace", "t.json"], "the trace (--trace t.json)", "t.json"),
    "html": (["--html", "page.html"], ["--html", "page.html"], "the HTML report (--html page.html)", "page.html"),
}


@pytest.mark.parametrize("what", COLLISIONS)
def test_a_second_writer_is_refused_before_any_event(tmp_path, what):
    first, second, use, file = COLLISIONS[what]
    with holding_job(tmp_path, *first) as (process, go):
        result = run_limited("run", *SOURCE, *second, cwd=tmp_path, report=False)
        assert_one_line_error(result, use, refusal(process.pid), "wait for it to end, or give another path")
        assert not (tmp_path / file).exists()
        code, _, stderr = finish(process, go, tmp_path)
    assert code == 0, stderr
    assert (tmp_path / file).exists()
    if what == "output":
        assert event_count(tmp_path / file) == 20
    assert sorted(p.name for p in tmp_path.iterdir() if ".lanes-claim" in p.name or ".partial-" in p.name) == []


@pytest.mark.parametrize("first_mode, second_mode", [(["--processes", 2], []), ([], ["--processes", 2])],
                         ids=["processes-first", "processes-second"])
def test_a_multi_process_job_claims_its_output_in_the_parent(tmp_path, first_mode, second_mode):
    with holding_job(tmp_path, "--output", "root:file=out.root", *first_mode) as (process, go):
        result = run_limited("run", *SOURCE, "--output", "root:file=out.root", *second_mode, cwd=tmp_path,
                             report=False)
        assert_one_line_error(result, "output 'root' (file=out.root)", refusal(process.pid))
        assert not list(tmp_path.glob(f"out.worker-*-of-{process.pid + 1}*"))  # nothing of the refused job's
        code, _, stderr = finish(process, go, tmp_path)
    assert code == 0, stderr
    assert event_count(tmp_path / "out.root") == 20
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out.")) == ["out.root"]


def test_a_second_scan_into_one_directory_is_refused(tmp_path):
    marker, go = tmp_path / "first.held", tmp_path / "first.go"
    scan = [str(BINARY), "scan", "-o", "scan", "--vary", "threads=1", "--", *SOURCE[:-2], *held(marker, go),
            "--output", "dummy"]
    with open(tmp_path / "first.err", "w") as stderr:
        first = subprocess.Popen(scan, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=stderr, start_new_session=True)
    try:
        wait_for(lambda: marker.exists() or first.poll() is not None, 120, "the first scan's run")
        second = subprocess.run(scan, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert_one_line_error(Result(second, tmp_path / "none"), f"the scan directory {tmp_path / 'scan'}",
                              refusal(first.pid), "give another -o")
        go.touch()
        assert first.wait(timeout=120) == 0, (tmp_path / "first.err").read_text()
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    manifest = json.loads((tmp_path / "scan" / "manifest.json").read_text())
    report = json.loads(Path(manifest["runs"][0]["reports"][0]).read_text())
    assert report["events"] == 20
    assert not (tmp_path / "scan" / "manifest.json.lanes-claim").exists()


def test_an_earlier_jobs_file_is_replaced_and_the_summary_says_so(tmp_path):
    for replaced in (False, True):
        result = run_limited("run", *SOURCE, "--output", "root:file=out.root", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        details = next(m["details"] for m in result.report["modules"] if m["label"] == "root")
        assert details.get("replaced", False) is replaced
        line = next(line for line in result.stdout.splitlines() if "events written to out.root" in line)
        assert ("replaced an earlier file" in line) is replaced, line
    assert event_count(tmp_path / "out.root") == 20


def test_a_killed_jobs_claim_blocks_nobody(tmp_path):
    with holding_job(tmp_path, "--output", "root:file=out.root") as (process, go):
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        killed = process.pid
    assert (tmp_path / "out.root.lanes-claim").exists()
    result = run_limited("run", *SOURCE, "--output", "root:file=out.root", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    warnings = result.stderr.strip().splitlines()
    assert warnings == [f"lanes: warning: 'out.root.partial-{killed}' is left from a job that was killed "
                        f"(process {killed} is gone); `lanes clean . --yes` removes it"], result.stderr
    assert event_count(tmp_path / "out.root") == 20
    # The killed job's line stays in the claim file as long as its partial file does: the proof for `lanes clean`.
    assert f"left {killed} " in (tmp_path / "out.root.lanes-claim").read_text()


def test_the_final_rename_checks_the_claim_again(tmp_path):
    with holding_job(tmp_path, "--output", "root:file=out.root") as (first, first_go):
        (tmp_path / "out.root.lanes-claim").unlink()  # by hand, while the first job runs
        with holding_job(tmp_path, "--output", "root:file=out.root", name="second") as (second, second_go):
            code, _, stderr = finish(first, first_go, tmp_path)
            assert code == 1, stderr
            lines = stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("lanes: error: "), stderr
            assert "cannot write 'out.root': its claim file 'out.root.lanes-claim' was removed while this job ran, " \
                   f"and another lanes job (pid {second.pid} on host " in lines[0], lines[0]
            assert not (tmp_path / "out.root").exists() and not (tmp_path / f"out.root.partial-{first.pid}").exists()
            code, _, stderr = finish(second, second_go, tmp_path, name="second")
    assert code == 0, stderr
    assert event_count(tmp_path / "out.root") == 20


def test_lanes_clean_removes_only_what_a_claim_proves(tmp_path):
    with holding_job(tmp_path, "--output", "root:file=out.root", "--processes", 2) as (process, go):
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    claim = tmp_path / "out.root.lanes-claim"
    left = sorted(p for p in tmp_path.iterdir() if p.name.startswith("out.") and p != claim)
    assert claim.exists() and left, left
    left.append(claim)  # listed after the files it proves
    # A user's files of the same look, a finished output, and a symlink under a name the claim proves.
    kept = [tmp_path / "x.partial-99999", tmp_path / "out.root.partial-99999", tmp_path / "out.root",
            tmp_path / "out.worker-0-of-99999.root"]
    for path in kept:
        path.write_text("mine")
    link = tmp_path / f"out.worker-5-of-{process.pid}.root"
    link.symlink_to(tmp_path / "x.partial-99999")
    listed = subprocess.run([str(BINARY), "clean", str(tmp_path)], capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    total = sum(p.stat().st_size for p in left)
    assert listed.stdout.splitlines() == [f"would remove {p} ({size_text(p.stat().st_size)})" for p in left] + [
        f"{len(left)} files, {size_text(total)}: `lanes clean {tmp_path} --yes` removes them"]
    assert all(p.exists() for p in left + kept)
    cleaned = subprocess.run([str(BINARY), "clean", str(tmp_path), "--yes"], capture_output=True, text=True)
    assert cleaned.returncode == 0, cleaned.stderr
    assert [line.split(" (")[0] for line in cleaned.stdout.splitlines()] == [f"removed {p}" for p in left]
    assert not any(p.exists() for p in left)
    assert all(p.exists() for p in kept) and link.is_symlink()


def test_lanes_clean_lists_nothing_where_no_claim_proves_anything(tmp_path):
    (tmp_path / "x.partial-99999").write_text("mine")
    (tmp_path / "out.worker-1-of-99999.root").write_text("mine")
    for args in ([], ["--yes"]):
        result = subprocess.run([str(BINARY), "clean", str(tmp_path), *args], capture_output=True, text=True)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert (tmp_path / "x.partial-99999").exists() and (tmp_path / "out.worker-1-of-99999.root").exists()
