"""Does pinning change the CPU a saturating set of jobs costs? (lanes supervise)

Runs the same set of jobs under `lanes supervise` several ways and compares
their user and system CPU time and wall time, as the supervisor's JSON report
gives them (and each job's event rate, from its own `lanes run` report):

  none             the jobs are measured, never bound: the kernel places their threads
  numa-compact     each job gets its own cores; confined when it over-uses them (after --grace)
  numa-compact/start  each job bound to its own cores from the start

The jobs: JOBS copies of `lanes run -t THREADS` (the default NanoAOD-like job
of busy waiters), each given CORES cores, so that by default (2 jobs x 1 core,
2 threads each) the jobs ask for twice the cores they are given and together
saturate a 2-core machine.

On a machine with one NUMA node, read CAVEAT below first.

Writes OUT/pinning.json and OUT/pinning.png (default OUT: bench-results/).
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# What a 2-core, single-NUMA-node machine can and cannot show.
CAVEAT = (
    "with one NUMA node and one L3, numa-compact vs none differs only in *which core* each thread runs on "
    "and in how often the kernel migrates threads; there is no remote memory and no L3 to keep hot, so "
    "the NUMA and cache effects the strategies are for (the ALICE study's) cannot appear. Under "
    "saturation the kernel's own load balancing is close to optimal, so expect differences of a few "
    "percent at most, mostly in system time (migrations, context switches), within run-to-run noise "
    "unless --repeat is raised (on a machine shared with other work, the noise is larger than any "
    "effect). Confinement on over-use rarely triggers here: two saturating jobs each get about one core, "
    "under the 1.2-core limit; numa-compact/start shows what confinement costs. Run it on a multi-socket "
    "node for the real question."
)

CONFIGS = {
    "none": ["--strategy", "none"],
    "numa-compact": ["--strategy", "numa-compact"],
    "numa-compact/start": ["--strategy", "numa-compact", "--confine", "start"],
}


def job_file(directory, lanes, args, tag):
    """A job file of args.jobs copies of `lanes run`, each writing its run report into DIRECTORY."""
    lines = []
    for job in range(args.jobs):
        report = directory / f"{tag}-job{job}.json"
        lines.append(f"cores={args.cores} name=job{job} {lanes} run -t {args.threads} -n {args.events} --report {report}")
    path = directory / f"{tag}.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_config(lanes, name, options, args, directory, repeat):
    tag = f"{name.replace('/', '-')}-{repeat}"
    report = directory / f"{tag}-supervise.json"
    command = [lanes, "supervise", job_file(directory, lanes, args, tag), "--report", report,
               "--interval", str(args.interval), "--grace", str(args.grace), *options]
    completed = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"pinning.py: {name} failed ({completed.returncode}):\n{completed.stderr}")
    jobs = json.loads(report.read_text())["jobs"]
    rates = [json.loads((directory / f"{tag}-job{j}.json").read_text())["events_per_s"] for j in range(args.jobs)]
    return {
        "config": name,
        "repeat": repeat,
        "user_s": sum(job["user_s"] for job in jobs),
        "sys_s": sum(job["sys_s"] for job in jobs),
        "wall_s": max(job["started_s"] + job["wall_s"] for job in jobs),
        "events_per_s": sum(rates),
        "confined": sum(job["confined"] for job in jobs),
        "jobs": jobs,
    }


def mean(values):
    return sum(values) / len(values)


def summarise(runs):
    summary = {}
    for name in CONFIGS:
        mine = [run for run in runs if run["config"] == name]
        summary[name] = {key: mean([run[key] for run in mine]) for key in ("user_s", "sys_s", "wall_s", "events_per_s", "confined")}
    return summary


def plot(summary, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summary)
    fig, (cpu, rate) = plt.subplots(1, 2, figsize=(10, 4))
    user = [summary[n]["user_s"] for n in names]
    system = [summary[n]["sys_s"] for n in names]
    cpu.bar(names, user, label="user")
    cpu.bar(names, system, bottom=user, label="sys")
    cpu.set_ylabel("CPU seconds, all jobs")
    cpu.legend()
    rate.bar(names, [summary[n]["events_per_s"] for n in names], color="tab:green")
    rate.set_ylabel("events/s, all jobs")
    fig.suptitle("lanes supervise: pinning strategies (mean of repeats)")
    fig.tight_layout()
    fig.savefig(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lanes", default=str(REPO / "build" / "bin" / "lanes"), help="the lanes binary")
    parser.add_argument("--out", default="bench-results", help="output directory (default bench-results/)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cores", type=int, default=1, help="cores given to each job")
    parser.add_argument("--threads", type=int, default=2, help="threads each job runs")
    parser.add_argument("--events", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--grace", type=float, default=1.0)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    with tempfile.TemporaryDirectory() as scratch:
        for repeat in range(args.repeat):
            for name, options in CONFIGS.items():  # interleaved, so that drifting load hits every config alike
                runs.append(run_config(args.lanes, name, options, args, Path(scratch), repeat))
                print(f"{name:20s} repeat {repeat}: user {runs[-1]['user_s']:.2f} s  sys {runs[-1]['sys_s']:.2f} s  "
                      f"wall {runs[-1]['wall_s']:.2f} s  {runs[-1]['events_per_s']:.0f} events/s  "
                      f"confined {runs[-1]['confined']}/{args.jobs}")
    summary = summarise(runs)
    machine = json.loads(subprocess.run([args.lanes, "topology", "--json"], capture_output=True, text=True).stdout)["counts"]
    result = {"settings": vars(args), "machine": machine, "runs": runs, "summary": summary,
              "caveat": CAVEAT if machine["numa_nodes"] < 2 else ""}
    (out / "pinning.json").write_text(json.dumps(result, indent=2) + "\n")
    plot(summary, out / "pinning.png")
    print(f"wrote {out / 'pinning.json'} and {out / 'pinning.png'}")
    if machine["numa_nodes"] < 2:
        print("note: one NUMA node here. " + CAVEAT)


if __name__ == "__main__":
    main()
