"""lanes.scan(): a grid of configurations of a job measured as `lanes scan` measures it (lanes.tools.scan: the same
axes, procedures, interleaved repeats, directory, table, summary and plots), returned as a DataFrame."""

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from . import _locations, _pages, _run
from ._errors import OptionError
from .tools import scan as scan_tool
from .tools.lanes_report import inputs
from .tools.lanes_scan import grid, runner
from .tools.lanes_scan.grid import Axis, ScanError


class Scan(pd.DataFrame):
    """One row per run (run, point, repeat, an axis a column, threads, events, events_per_s, wall_s,
    cpu_efficiency, peak_rss_bytes, failed, error: the scan's table.csv). `directory` holds what `lanes scan -o`
    writes there (reports, summary.json, plots/*.png); in a notebook a scan shows as its HTML page."""

    _metadata = ["directory"]

    @property
    def _constructor(self):
        return pd.DataFrame  # what is derived from a scan is a plain table

    @property
    def plots(self):
        """The scan's plots: [Path] of plots/*.png."""
        return sorted((Path(self.directory) / "plots").glob("*.png"))

    @property
    def summary(self):
        """Per point: its axes and each figure's median, min and max (summary.json)."""
        points = inputs.load(self.directory)["summary"]
        rows = []
        for point in points:
            row = {"point": point["point"], **point["axes"], "runs": point["runs"], "failed_runs": point["failed_runs"]}
            for metric in ("events_per_s", "wall_s", "cpu_efficiency", "peak_rss_bytes"):
                spread = point.get(metric) or {}
                row.update({f"{metric}_{k}": spread.get(k) for k in ("median", "min", "max")})
            rows.append(row)
        return pd.DataFrame(rows)

    def page(self, title=None):
        """The scan's HTML report (as `lanes report DIR` writes it), as text."""
        return _pages.scan_page(inputs.load(self.directory), title or f"lanes scan: {Path(self.directory).name}")

    def _repr_html_(self):
        return _pages.frame(self.page())


class _Bar:
    """The scan's progress as a tqdm bar of its runs (runner.Progress's interface)."""

    def __init__(self, total, done, stream):
        from tqdm.auto import tqdm
        self.bar = tqdm(total=total, initial=done, unit="run", desc="lanes scan")

    def start(self, run_id, label):
        self.bar.set_postfix_str(f"{run_id} {label}")

    def finish(self, run_id, seconds, error):
        self.bar.update(1)

    def close(self):
        self.bar.close()


class _Quiet(_Bar):
    def __init__(self, total, done, stream):
        pass

    def start(self, run_id, label):
        pass

    def finish(self, run_id, seconds, error):
        pass

    def close(self):
        pass


@contextmanager
def _analyzer_environment(job):
    """The environment the scan's runs inherit, for its Python analyzers (as job.run() gives them)."""
    wanted = {k: v for k, v in _run.environment(job).items() if k in ("LANES_PYTHON", "PYTHONPATH")}
    saved = {k: os.environ.get(k) for k in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def scan(job, vary, repeat=1, procedure="fixed", events=None, cores=None, directory=None, keep_files=False,
         progress=True):
    """Measures `job` at every point of the grid `vary` ({axis: [values]}, axes as `lanes scan --vary` names them:
    threads, lanes, processes, events, pin, output.compression, module[LABEL].time, ...), each point `repeat`
    times, the repeats interleaved; `procedure` fixed, per-thread or fill-machine, `events` per point, as `lanes
    scan` does. The scan's files go to `directory` (default: a new temporary one, kept); a scan there already
    resumes. Returns a Scan (a DataFrame: a row per run); `progress`: a tqdm bar of the runs. Ctrl-C stops the runs
    in flight gracefully, writes the table of those that ended, and raises KeyboardInterrupt."""
    if not isinstance(vary, dict) or not vary:
        raise OptionError(f"vary is a dict of axes and their values ({{'threads': [1, 2]}}), not {vary!r}")
    directory = Path(directory).resolve() if directory else Path(tempfile.mkdtemp(prefix="lanes-scan-"))
    directory.mkdir(parents=True, exist_ok=True)
    binary = _locations.binary()
    varied = job.copy()  # an axis overrides the job's own threads, lanes or events
    for setting in ("threads", "lanes", "events"):
        if setting in vary:
            setattr(varied, setting, None)
    words, _ = _run.arguments(varied, directory)
    try:
        axes = [Axis.of(name, list(values) if isinstance(values, (list, tuple)) else [values])
                for name, values in vary.items()]
        plan = grid.Scan(grid.parse_run_arguments(words), axes, procedure=procedure,
                         events=events, repeat=repeat, cores=cores)
        plan.check()
        runs = runner.plan_runs(plan, binary, directory)
        command = ["python", "lanes.scan", *(f"{name}={values}" for name, values in vary.items())]
        runner.prepare(plan, runs, directory, False, runner.provenance_of(binary, command))
    except ScanError as error:
        raise OptionError(f"lanes.scan: {error}") from None
    interrupted = False
    with _analyzer_environment(job):
        try:
            runner.run_all(runs, directory, os.getcwd(), keep_files, progress=_Bar if progress else _Quiet)
        except (KeyboardInterrupt, runner.Interrupted):
            interrupted = True
    scan_tool.tabulate(plan, runs, directory)
    if interrupted:
        raise KeyboardInterrupt(f"the scan was interrupted: the runs that ended are in {directory}")
    table = runner.read_json(directory / "table.json")
    frame = Scan(pd.DataFrame(table["rows"], columns=table["columns"]))
    frame.directory = directory
    return frame
