"""The job's side of a Python analyzer: what the interpreter that `lanes` embeds (plugins/python) calls to load an
analyzer, describe its errors and save its results. Not for users."""

import importlib
import importlib.util
import pickle
import sys
import traceback
from pathlib import Path
from collections import namedtuple
from types import SimpleNamespace

from ._analyzer import Analyzer

# A product of a type that has no Python form: its type's name and its size in bytes.
Product = namedtuple("Product", "type bytes")


class Event(dict):
    """One event as an analyzer's function gets it: its consumed products by label (PythonEvent.h), and its id.
    Made, filled and emptied by the job (plugins/python), and valid during the call only."""

    __slots__ = ("id", "lane")  # (run, lumi, event number), and the lane that holds it

    @property
    def run(self):
        return self.id[0]

    @property
    def lumi(self):
        return self.id[1]

    @property
    def number(self):
        return self.id[2]

    def __missing__(self, label):
        raise KeyError(f"'{label}' is not among the products the analyzer consumes (an event holds them during "
                       "its call only)")

    def __repr__(self):
        return f"<lanes event {self.run}:{self.lumi}:{self.number}: {', '.join(self)}>"


def _import(function):
    """The object FILE.py:NAME or MODULE:NAME names (NAME may be dotted)."""
    where, _, qualname = function.rpartition(":")
    if not where or not qualname:
        raise ValueError(f"function={function}: give FILE.py:NAME or MODULE:NAME")
    if where.endswith(".py"):
        path = Path(where).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"{where} is not a file")
        sys.path.insert(0, str(path.parent))  # its own imports of the modules beside it
        spec = importlib.util.spec_from_file_location(f"lanes_analysis_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    found = module
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def load(function, pickled):
    """The analyzer named by `function` (FILE.py:NAME or MODULE:NAME), or pickled in the file `pickled`:
    its function, consumed products, results (fresh) and name."""
    if pickled:
        with open(pickled, "rb") as f:
            found = pickle.load(f)
    else:
        found = _import(function)
    if not isinstance(found, Analyzer):
        raise TypeError(f"{function or pickled} is not an analyzer (decorate it with @lanes.analyzer), but "
                        f"{type(found).__name__}")
    return SimpleNamespace(function=found.function, consumes=found.consumes, results=found.fresh_results(),
                           name=found.name)


def describe_error(kind, value, trace):
    """A Python error as one line: 'TYPE: MESSAGE (traceback: FILE:LINE in FUNCTION: CODE < ...)', innermost
    frame first, without the frames of this module and of Python's import machinery."""
    frames = [f for f in traceback.extract_tb(trace) if f.filename != __file__ and not f.filename.startswith("<frozen")]
    where = " < ".join(f"{Path(f.filename).name}:{f.lineno} in {f.name}" + (f": {f.line}" if f.line else "")
                       for f in reversed(frames))
    message = "".join(traceback.format_exception_only(kind, value)).strip()
    return f"{message} (traceback: {where})" if where else message


def save_results(results, path):
    """Pickles the analyzer's results to `path`."""
    with open(path, "wb") as f:
        pickle.dump(results, f, protocol=pickle.HIGHEST_PROTOCOL)
