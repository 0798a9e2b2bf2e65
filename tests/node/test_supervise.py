"""`lanes supervise`: jobs on their own PUs, over-users confined, failures reported, bad job files refused."""

import json
import sys

import pytest
from nodecli import assert_one_line_error, needs_two_pus, write_busy_job


def supervise(lanes, tmp_path, job_lines, *options):
    """Runs `lanes supervise` on a job file of JOB_LINES; returns (result, report JSON or None)."""
    job_file = tmp_path / "jobs.txt"
    job_file.write_text("\n".join(job_lines) + "\n")
    report = tmp_path / "supervise.json"
    result = lanes("supervise", job_file, "--report", report, *options, timeout=180)
    return result, (json.loads(report.read_text()) if report.exists() else None)


@needs_two_pus
def test_a_job_over_using_its_core_is_confined_with_every_thread_and_process(lanes, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    job = f"cores=1 name=greedy {sys.executable} {write_busy_job(tmp_path)} {out} 3"
    log = tmp_path / "supervise.log"
    # On a quiet machine its 3 busy processes use ~2 cores, well over the
    # default limit of 1.2; on a loaded one (the suite on 2 cores, other
    # builds) they may get less than that, so the limit here is a tenth of a
    # core: what is tested is what confinement does, not the threshold
    # (OveruseDetectorTest tests that).
    result, report = supervise(lanes, tmp_path, [job], "--interval", "0.1", "--grace", "0.3", "--tolerance", "-0.9",
                               "--log", log)
    assert result.returncode == 0, result.stderr
    [greedy] = report["jobs"]
    assert greedy["exit_code"] == 0
    assert greedy["confined"] is True
    assert greedy["confined_after_s"] > 0.3
    assert greedy["peak_usage_cores"] > 0.1
    allocated = ",".join(map(str, greedy["pus"]))
    assert len(greedy["pus"]) == 1
    processes = sorted(out.glob("process-*"))
    assert len(processes) == 3
    assert {p.read_text() for p in processes} == {allocated}
    threads = (out / "threads").read_text().split()
    assert len(threads) >= 2 and set(threads) == {allocated}  # the idle thread too
    assert (out / "late").read_text() == allocated  # started after the confinement
    assert "job 'greedy' confined to PUs " + allocated in log.read_text()
    assert "greedy" in result.stdout


def test_jobs_run_without_a_shell(lanes, tmp_path):
    argv_file = tmp_path / "argv.json"
    script = "import json, sys; json.dump(sys.argv[2:], open(sys.argv[1], 'w'))"
    line = f"cores=1 {sys.executable} -c \"{script}\" {argv_file} ; $(touch {tmp_path}/pwned) 'a b' && echo"
    result, report = supervise(lanes, tmp_path, [line], "--interval", "0.05")
    assert result.returncode == 0, result.stderr
    assert json.loads(argv_file.read_text()) == [";", "$(touch", f"{tmp_path}/pwned)", "a b", "&&", "echo"]
    assert not (tmp_path / "pwned").exists()
    assert report["jobs"][0]["confined"] is False


def test_failed_jobs_are_reported_not_retried(lanes, tmp_path):
    lines = [
        "cores=1 name=fails false",
        "cores=1 name=missing /no/such/command",
        f"cores=1 name=killed {sys.executable} -c \"import os; os.kill(os.getpid(), 9)\"",
        "cores=1 name=fine true",
    ]
    result, report = supervise(lanes, tmp_path, lines, "--interval", "0.05", "--strategy", "none")
    assert result.returncode == 1
    codes = {job["name"]: job["exit_code"] for job in report["jobs"]}
    assert codes == {"fails": 1, "missing": 127, "killed": 137, "fine": 0}
    missing = next(job for job in report["jobs"] if job["name"] == "missing")
    assert "cannot run '/no/such/command'" in missing["error"]
    assert report["strategy"] == "none"


def test_a_synthetic_topology_only_plans(lanes, tmp_path):
    lines = [f"cores=64 touch {tmp_path}/ran", "cores=64 true", "cores=64 true"]
    result, report = supervise(lanes, tmp_path, lines, "--topology", "synthetic:pack:2 numa:1 l3:1 core:64 pu:2")
    assert result.returncode == 0, result.stderr
    assert "nothing runs" in result.stdout
    assert result.stdout.count("PUs ") == 3
    assert not (tmp_path / "ran").exists()
    assert report is None


@pytest.mark.parametrize(
    "lines, fragments",
    [
        (["cores=1 true", "cores=one true"], ["jobs.txt:2: cores must be a positive integer, not 'one'"]),
        (["true"], ["jobs.txt:1: a job line starts with cores=N"]),
        (["cores=1 echo 'unterminated"], ["jobs.txt:1: unterminated ' quote"]),
        (["# only a comment"], ["no jobs"]),
        ([f"cores=999 true"], ["job on line 1 can never run", "999 PUs"]),
    ],
)
def test_bad_job_files(lanes, tmp_path, lines, fragments):
    result, report = supervise(lanes, tmp_path, lines)
    assert_one_line_error(result, *fragments)
    assert report is None


def test_bad_options(lanes, tmp_path):
    assert_one_line_error(lanes("supervise", tmp_path / "none.txt"), "cannot read the job file")
    (tmp_path / "jobs.txt").write_text("cores=1 true\n")
    assert_one_line_error(lanes("supervise", tmp_path / "jobs.txt", "--strategy", "tight"), "unknown pinning strategy")
    assert_one_line_error(lanes("supervise", tmp_path / "jobs.txt", "--report", "/no/such/dir/r.json"), "/no/such/dir")
    assert lanes("supervise", tmp_path / "jobs.txt", "--interval", "0").returncode == 2
