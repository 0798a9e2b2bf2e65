#!/usr/bin/env python3
"""The HTML report's pictures in the guide: runs small jobs of examples/reconstruction.toml, writes the page of
each kind (a single process's run, a multi-process run, an MPI run, a scan, a comparison) and takes a screenshot of
the top of each with headless Chromium into docs/images/report-KIND.png.

    .venv/bin/python -m lanes.tools.report_screenshots [--lanes build/bin/lanes] [--out docs/images] [--events 200]

The MPI page needs mpirun (OpenMPI; three ranks, oversubscribed) and a lanes built with MPI; without mpirun that
page is skipped, saying so.
tests/tools/test_pages.py makes the same pages (make_pages) and checks them.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
MENU = REPO / "examples" / "reconstruction.toml"
KINDS = ("run", "multi-process", "mpi", "scan", "compare")
# Root may run MPI jobs only when told so; no binding: the machine may be shared.
MPI_ENVIRONMENT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                   "OMPI_MCA_hwloc_base_binding_policy": "none"}


def run(command, directory, environment=None):
    completed = subprocess.run([str(word) for word in command], cwd=directory, capture_output=True, text=True,
                               timeout=600, stdin=subprocess.DEVNULL, env={**os.environ, **(environment or {})})
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed ({completed.returncode}): {completed.stderr[-2000:]}")
    return completed


def make_pages(lanes, directory, events=200, kinds=KINDS):
    """Writes the page of each of `kinds` in `directory`; returns {kind: {"page": HTML, "input": its report or scan
    directory (a comparison's: the two reports), "trace": the trace or None}}."""
    job = ["--menu", MENU, "-n", events]
    pages = {}
    if "run" in kinds or "compare" in kinds:
        run([lanes, "run", "-t", 2, "-l", 3, *job, "--report", "run.json", "--trace", "run.trace.json",
             "--html", "run.html"], directory)
        pages["run"] = {"page": directory / "run.html", "input": directory / "run.json",
                        "trace": directory / "run.trace.json"}
    if "multi-process" in kinds or "compare" in kinds:
        run([lanes, "run", "-p", 2, "-t", 1, *job, "--report", "multi.json", "--html", "multi.html"], directory)
        pages["multi-process"] = {"page": directory / "multi.html", "input": directory / "multi.json", "trace": None}
    if "mpi" in kinds:
        run(["mpirun", "--oversubscribe", "-np", 3, lanes, "run", "-t", 1, *job, "--report", "mpi.json", "--html",
             "mpi.html"], directory, MPI_ENVIRONMENT)
        pages["mpi"] = {"page": directory / "mpi.html", "input": directory / "mpi.json", "trace": None}
    if "scan" in kinds:
        run([lanes, "scan", "-o", "scan", "--vary", "threads=1,2", "--repeat", 2, "--events", max(events // 4, 10),
             "--html", "scan.html", "--", "--menu", MENU], directory)
        pages["scan"] = {"page": directory / "scan.html", "input": directory / "scan", "trace": None}
    if "compare" in kinds:
        run([lanes, "compare", "run.json", "multi.json", "--html", "compare.html"], directory)
        pages["compare"] = {"page": directory / "compare.html",
                            "input": (directory / "run.json", directory / "multi.json"), "trace": None}
    return {kind: pages[kind] for kind in kinds if kind in pages}


def screenshot(page, png, height=1300):
    """The top `height` pixels of the page, 1200 wide, as PNG."""
    run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--force-device-scale-factor=1",
         f"--user-data-dir={png.parent / ('.profile-' + png.stem)}", f"--screenshot={png}",
         f"--window-size=1200,{height}", "--hide-scrollbars", page.resolve().as_uri()], png.parent)
    shutil.rmtree(png.parent / f".profile-{png.stem}", ignore_errors=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lanes", default=os.environ.get("LANES_BINARY", str(REPO / "build" / "bin" / "lanes")))
    parser.add_argument("--out", default=str(REPO / "docs" / "images"), help="where the PNGs go")
    parser.add_argument("--events", type=int, default=200, help="events of each job (a scan's runs: a quarter)")
    options = parser.parse_args(argv)
    out = Path(options.out).resolve()
    work = out / ".report-screenshots"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        kinds = KINDS if shutil.which("mpirun") else tuple(k for k in KINDS if k != "mpi")
        if "mpi" not in kinds:
            print("mpi: skipped (no mpirun)", file=sys.stderr)
        pages = make_pages(Path(options.lanes).resolve(), work, options.events, kinds)
        for kind in kinds:
            screenshot(pages[kind]["page"], out / f"report-{kind}.png")
            print(out / f"report-{kind}.png")
    except RuntimeError as error:
        print(f"report_screenshots: error: {error}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
