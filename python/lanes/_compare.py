"""lanes.compare(): two runs, or two scans, side by side (lanes.tools.lanes_report.comparison, as `lanes compare`),
as a DataFrame."""

import warnings
from pathlib import Path

import pandas as pd

from ._errors import OptionError
from ._result import Result
from ._scan import Scan
from .tools.lanes_report import comparison, inputs, provenance


def _source(side, name):
    if isinstance(side, Result):
        return {"kind": "run", "path": side.report_path or Path(name), "report": side.report}
    if isinstance(side, Scan):
        return inputs.load(side.directory)
    if isinstance(side, (str, Path)):
        try:
            return inputs.load(side)
        except inputs.InputError as error:
            raise OptionError(f"lanes.compare: {error}") from None
    raise OptionError(f"lanes.compare takes results, scans, report files or scan directories, not {side!r}")


def _scan_rows(result):
    rows = []
    for point in result["points"]:
        row = dict(point["axes"])
        for name, metric in point["metrics"].items():
            row.update({f"{name}_a": metric["a"] and metric["a"]["median"],
                        f"{name}_b": metric["b"] and metric["b"]["median"],
                        f"{name}_ratio": metric["ratio"], f"{name}_beyond_spread": metric["beyond_spread"]})
        rows.append(row)
    return pd.DataFrame(rows)


def compare(a, b):
    """A (a Result, a Scan, a run report's path or a scan directory) and B side by side: for two runs, a row per
    figure (events_per_s, wall_s, cpu_efficiency, ...) with a, b and ratio = b / a, and .attrs["modules"] the
    modules by impact (a_s, b_s, delta_s, ratio, and the stalls'); for two scans, a row per common point with each
    metric's medians, ratio and whether the difference exceeds the run-to-run spread. .attrs["comparison"] holds
    the comparison whole (as `lanes compare --json` prints it); a warning says when the two ran on different
    machines or builds."""
    result = comparison.compare(_source(a, "A"), _source(b, "B"))
    warning = provenance.warning(result["provenance"]["differences"])
    if warning:
        warnings.warn(f"lanes.compare: {warning}", stacklevel=2)
    if result["kind"] == "run":
        table = pd.DataFrame(result["figures"]).set_index("name")
        table.attrs["modules"] = pd.DataFrame(result["modules"])
    else:
        table = _scan_rows(result)
    table.attrs["comparison"] = result
    return table
