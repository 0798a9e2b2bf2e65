#!/usr/bin/env python3
"""hdf5 under MPI: one file written together (parallel=true) against the default, parts merged by rank 0.
Runs `mpirun --oversubscribe -np RANKS lanes run` on NanoAOD replayed from memory into an hdf5 output, each mode
in turn for --rounds paired rounds, and prints JSON: per mode and round the events/s of the whole job (the
command's wall time, start of MPI and the merge or collective write included), and the report's merge_s (rank 0
merging, or the ranks writing together and rank 0 committing).
  .venv/bin/python bench/mpi/parallel_hdf5.py [--ranks 3] [--events 4000] [--rounds 3] [--layout blobs]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LANES = REPO / "build" / "bin" / "lanes"
NANO = REPO / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
# Root may run MPI jobs only when told so; no binding: the cores are shared.
ENVIRONMENT = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
               "OMPI_MCA_hwloc_base_binding_policy": "none"}
MODES = {"merge": "", "parallel": ",parallel=true"}


def run(arguments, mode, workdir):
    report = Path(workdir) / "report.json"
    output = f"hdf5:file={Path(workdir) / 'out.h5'},layout={arguments.layout}{MODES[mode]}"
    command = ["mpirun", "--oversubscribe", "-np", str(arguments.ranks), str(LANES), "run", "-t", "1",
               "-n", str(arguments.events), "--source", f"root:file={NANO},repeat=200", "--output", output,
               "--report", str(report)]
    begin = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=ENVIRONMENT)
    seconds = time.monotonic() - begin
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    summary = json.loads(report.read_text())
    (Path(workdir) / "out.h5").unlink()
    return {"events_per_s": summary["events"] / seconds, "wall_s": seconds, "merge_s": summary["merge_s"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=3)
    parser.add_argument("--events", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--layout", choices=("columns", "blobs"), default="blobs")
    arguments = parser.parse_args()
    results = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as workdir:
        for _ in range(arguments.rounds):
            for mode in MODES:
                results[mode].append(run(arguments, mode, workdir))
    print(json.dumps({"ranks": arguments.ranks, "events": arguments.events, "layout": arguments.layout,
                      "load_average": os.getloadavg()[0], **results}, indent=1))


if __name__ == "__main__":
    main()
