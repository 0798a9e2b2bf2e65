"""Analyzers written in Python: @lanes.analyzer(consumes=[...]) makes a function one that lanes runs inside the job,
as a `one` module through the interpreter it embeds (plugins/python), with each event's products."""

import copy

from ._errors import OptionError


class Analyzer:
    """A function lanes calls for each event, as `function(event, results)`:

    - `event` is a dict of the consumed products by label: a read-only numpy array over the product's own memory
      for a number or a vector of numbers (valid during the call only: keep a copy, never the array), str for a
      string, a Product(type, bytes) for a type without a Python form; `event.run`, `event.lumi`,
      `event.number`, `event.lane` say which event it is.
    - `results` is the analyzer's own dict, made from `results=` as the job starts: histograms (hist,
      boost-histogram), counters, anything picklable; it comes back as the job's result.analyzers[label].

    Called outside a job (a test), it is the function itself."""

    def __init__(self, function, consumes, results, label):
        self.function = function
        self.consumes = list(consumes)
        self.results = results
        self.label = label

    @property
    def name(self):
        """MODULE:QUALNAME of the function."""
        return f"{self.function.__module__}:{self.function.__qualname__}"

    def fresh_results(self):
        """The results a new job starts from (a deep copy of `results=`)."""
        return copy.deepcopy(self.results)

    def __call__(self, event, results):
        return self.function(event, results)

    def __repr__(self):
        return f"<lanes analyzer {self.label} ({self.name}), consumes {', '.join(self.consumes)}>"


def analyzer(consumes, results=None, label=None):
    """Declares `function(event, results)` an analyzer of the products `consumes` (their labels), whose results
    start as the dict `results` (histograms, counters); its module is labelled `label` (default: the function's
    name)."""
    if isinstance(consumes, str) or not consumes or not all(isinstance(c, str) and c for c in consumes):
        raise OptionError(f"@lanes.analyzer: consumes must be a list of product labels, not {consumes!r}")
    if results is not None and not isinstance(results, dict):
        raise OptionError(f"@lanes.analyzer: results must be a dict (of histograms, counters...), not "
                          f"{type(results).__name__}")

    def wrap(function):
        if not callable(function):
            raise OptionError(f"@lanes.analyzer decorates a function, not {function!r}")
        return Analyzer(function, consumes, dict(results or {}), label or function.__name__)

    return wrap
