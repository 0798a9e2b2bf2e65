"""Shared by the node end-to-end tests (tests/node): one-line errors, a job that over-uses its cores."""

import os

import pytest

BUSY_JOB = '''
"""python busy_job.py OUT_DIR WORKERS: WORKERS busy processes (this one and
its children), and an idle thread. Each process spins until its affinity
narrows to one PU, then writes it to OUT_DIR/process-PID; this process then
writes each of its threads' affinity (OUT_DIR/threads) and that of a process
it starts afterwards (OUT_DIR/late). Exits 1 if nothing narrows in 60 s."""
import os, sys, threading, time

out_dir, workers = sys.argv[1], int(sys.argv[2])


def write(name, pus):
    with open(os.path.join(out_dir, name), "w") as out:
        out.write(",".join(str(pu) for pu in sorted(pus)))


idle = threading.Event()
threading.Thread(target=idle.wait, daemon=True).start()  # never runs, must be confined all the same
children = []
for _ in range(workers - 1):
    pid = os.fork()
    if pid == 0:
        children = None
        break
    children.append(pid)
deadline = time.monotonic() + 60
while len(os.sched_getaffinity(0)) > 1 and time.monotonic() < deadline:
    for _ in range(20000):  # busy in user space, not in the system call
        pass
narrowed = len(os.sched_getaffinity(0)) == 1
write("process-%d" % os.getpid(), os.sched_getaffinity(0))
if children is None:
    os._exit(0 if narrowed else 1)
for child in children:
    os.waitpid(child, 0)
with open(os.path.join(out_dir, "threads"), "w") as out:
    for tid in os.listdir("/proc/self/task"):
        out.write(",".join(str(pu) for pu in sorted(os.sched_getaffinity(int(tid)))) + "\\n")
late = os.fork()
if late == 0:
    write("late", os.sched_getaffinity(0))
    os._exit(0)
os.waitpid(late, 0)
sys.exit(0 if narrowed else 1)
'''


def assert_one_line_error(result, *fragments, code=2):
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lanes: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def write_busy_job(directory):
    """Writes BUSY_JOB to DIRECTORY/busy_job.py and returns its path."""
    path = directory / "busy_job.py"
    path.write_text(BUSY_JOB)
    return path


needs_two_pus = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs 2 PUs to over-use one")
