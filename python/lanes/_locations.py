"""Where the `lanes` command and lanes' own files are, for this copy of the package (as cli/InstallLayout.h finds
them for the command):

- installed by `pip install .`: the command in the environment's scripts directory (ENV/bin/lanes), lanes' files
  in ENV/share/lanes;
- this checkout's python/lanes (the project's venv imports it: scripts/setup): the command of its build,
  build/bin/lanes, lanes' files in the checkout;
- installed by `cmake --install build --prefix P`: P/share/lanes/python/lanes, the command P/bin/lanes.

$LANES_BINARY names another command (the tests' build, say).
"""

import os
import sysconfig
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


class NotFound(RuntimeError):
    """lanes' command (or one of its files) is not where this package looks for it."""


def _candidates():
    """(the command, the directory of lanes' files) for each layout this package may be in."""
    scripts = Path(sysconfig.get_path("scripts"))
    checkout = PACKAGE.parents[1]
    prefix = PACKAGE.parents[3]  # P of P/share/lanes/python/lanes
    return [(scripts / "lanes", scripts.parent / "share" / "lanes"),
            (checkout / "build" / "bin" / "lanes", checkout),
            (prefix / "bin" / "lanes", prefix / "share" / "lanes")]


@cache
def binary():
    """The `lanes` command this package runs."""
    given = os.environ.get("LANES_BINARY")
    if given:
        if not Path(given).is_file():
            raise NotFound(f"LANES_BINARY names {given}, which is not a file")
        return Path(given).resolve()
    for command, files in _candidates():
        if command.is_file() and (files / "data" / "profiles").is_dir():
            return command
    raise NotFound("no `lanes` command beside this package: install lanes with `pip install .`, or build it "
                   "(scripts/setup), or name it in LANES_BINARY")


def lanes_file(relative):
    """The path of `relative` ("data/profiles/nanoaod.json") among the files of lanes' command."""
    command = binary()
    for candidate, files in _candidates():
        if candidate.resolve() == command.resolve():
            return files / relative
    installed = command.parent.parent / "share" / "lanes"
    return (installed if installed.is_dir() else command.parents[2]) / relative
