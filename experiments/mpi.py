#!/usr/bin/env python3
"""lanes over MPI (`mpirun -np R lanes run ...`): rate and finish-time spread for R = 1..4 ranks and each
distribution (mpi-queue, block, round-robin), under uneven event costs: a heavy-tailed, log-normal time per
event, replayed by the `event-time` waiter as sleeps, so that this 2-core machine can host 4 ranks
(oversubscribed: mpirun --oversubscribe; sleeping ranks do not compete for the cores).

Writes mpi.json and mpi.png into --out (default bench-results/).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LANES = REPO / "build" / "bin" / "lanes"
DISTRIBUTIONS = ("mpi-queue", "block", "round-robin")
# Root may run MPI jobs only when told so; no binding: the cores are shared.
ENVIRONMENT = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
               "OMPI_MCA_hwloc_base_binding_policy": "none"}


def run(ranks, args, workdir):
    report = Path(workdir) / "report.json"
    command = ["mpirun", "--oversubscribe", "-np", str(ranks), str(LANES), "run", *map(str, args),
               "--report", str(report)]
    done = subprocess.run(command, capture_output=True, text=True, env=ENVIRONMENT)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    return json.loads(report.read_text())


def measure(workdir, max_ranks, events, chunk, seed):
    rng = random.Random(seed)
    times = Path(workdir) / "times.txt"
    times.write_text("".join(f"{rng.lognormvariate(-5.0, 1.2):.6f}\n" for _ in range(events)))
    results = []
    for ranks in range(1, max_ranks + 1):
        for distribution in DISTRIBUTIONS:
            report = run(ranks, ["-t", 1, "--distribution", distribution, "--chunk", chunk, "-n", events,
                                 "--source", "empty", "--waiter", f"event-time:file={times},mode=sleep"], workdir)
            results.append({
                "ranks": ranks, "distribution": distribution, "events": report["events"],
                "wall_s": report["wall_s"], "events_per_s": report["events_per_s"],
                "finish_spread_s": report["finish_spread_s"],
                "per_rank": [{k: w[k] for k in ("rank", "events", "events_per_s", "finished_s", "claim_waits")}
                             for w in report["workers"]],
            })
            print(f"{ranks} ranks, {distribution:11s}: {report['events_per_s']:7.1f} events/s, "
                  f"finish spread {report['finish_spread_s']:.3f} s", flush=True)
    return results


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (rate, spread) = plt.subplots(1, 2, figsize=(10, 4))
    for distribution in DISTRIBUTIONS:
        rows = [r for r in results if r["distribution"] == distribution]
        ranks = [r["ranks"] for r in rows]
        rate.plot(ranks, [r["events_per_s"] for r in rows], marker="o", label=distribution)
        spread.plot(ranks, [r["finish_spread_s"] for r in rows], marker="o", label=distribution)
    rate.set(xlabel="MPI ranks (oversubscribed on 2 cores)", ylabel="events/s", title="Rate")
    spread.set(xlabel="MPI ranks (oversubscribed on 2 cores)", ylabel="s", title="Spread of the ranks' finish times")
    for axes in (rate, spread):
        axes.set_xticks(sorted({r["ranks"] for r in results}))
        axes.legend()
    figure.suptitle("lanes over MPI: log-normal event costs (sleeps), 1 thread per rank")
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "bench-results")
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--chunk", type=int, default=2)
    parser.add_argument("--seed", type=int, default=14)
    arguments = parser.parse_args()
    arguments.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as workdir:
        results = measure(workdir, arguments.ranks, arguments.events, arguments.chunk, arguments.seed)
    summary = {"events": arguments.events, "chunk": arguments.chunk, "seed": arguments.seed,
               "cost": "log-normal(mu=-5, sigma=1.2) s per event, slept", "oversubscribed_on_cores": os.cpu_count(),
               "runs": results}
    (arguments.out / "mpi.json").write_text(json.dumps(summary, indent=2) + "\n")
    plot(results, arguments.out / "mpi.png")
    print(f"wrote {arguments.out / 'mpi.json'} and {arguments.out / 'mpi.png'}")


if __name__ == "__main__":
    main()
