"""lanes from Python: jobs, scans and comparisons as Python objects and pandas DataFrames, and analyzers written in
Python that run inside the job (docs/python.md).

    import lanes
    result = lanes.Job.default().run()
    result.events_per_s, result.modules          # the report as attributes, DataFrames
    scan = lanes.scan(job, vary={"threads": [1, 2]}, repeat=3)
    lanes.compare(result_a, result_b)

The `lanes` command runs every job, in a process of its own; lanes.tools holds the tools behind `lanes scan`,
`lanes report` and `lanes compare`. The job's process imports this package too (for its Python analyzers): what
needs pandas or the tools loads when first asked for.
"""

import importlib

from ._analyzer import Analyzer, analyzer
from ._errors import JobError, MenuError, OptionError

# name: the module that defines it, imported on first use (PEP 562)
_LAZY = {"Job": "_job", "Result": "_result", "Scan": "_scan", "scan": "_scan", "compare": "_compare",
         "plugins": "_plugins", "Plugin": "_plugins", "NotFound": "_locations"}

__all__ = ["Analyzer", "Job", "JobError", "MenuError", "NotFound", "OptionError", "Plugin", "Result", "Scan",
           "analyzer", "compare", "plugins", "scan"]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'lanes' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
