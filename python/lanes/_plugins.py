"""The plugins a job can name, with the options each takes: the one description that `lanes plugins --json` gives
(the command's own SPECs and menus are checked against the same plugins), read once per set of plugin libraries."""

import json
import subprocess
from dataclasses import dataclass
from functools import cache

from . import _locations
from ._errors import JobError, OptionError

KINDS = ("source", "module", "waiter", "output")


@dataclass(frozen=True)
class Plugin:
    kind: str
    name: str
    help: str
    options: tuple  # keys: "file", "fail-at"
    option_prefixes: tuple  # families of keys: "size." for size.<label>=BYTES
    library: str = None  # the plugin library it comes from; None: built in

    def option(self, key):
        """The option `key` names ("fail_at" is fail-at), or raises OptionError naming the option and the plugin."""
        for candidate in (key, key.replace("_", "-")):
            if candidate in self.options:
                return candidate
        return self._refuse(key)

    def family(self, name, labels):
        """The family of options `name` names (produces: produces.<label>=), given as {label: value}; or raises
        OptionError naming the first of them and the plugin."""
        for candidate in (name, name.replace("_", "-")):
            if candidate + "." in self.option_prefixes:
                return candidate
        return self._refuse(f"{name}.{next(iter(labels), '<label>')}")

    def _refuse(self, key):
        known = ", ".join([*self.options, *(p + "*" for p in self.option_prefixes)]) or "none"
        raise OptionError(f"{self.kind} '{self.name}' has no option '{key}' (its options: {known})")


@cache
def catalogue(libraries=()):
    """{(kind, name): Plugin} of the command, with the plugin libraries `libraries` (paths) loaded."""
    command = [str(_locations.binary()), "plugins", "--json"]
    for library in libraries:
        command += ["--plugin-library", str(library)]
    completed = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if completed.returncode != 0:
        lines = completed.stderr.strip().splitlines()
        raise JobError(lines[-1] if lines else f"`lanes plugins` failed (exit status {completed.returncode})")
    return {(p["kind"], p["name"]): Plugin(p["kind"], p["name"], p["help"], tuple(p["options"]),
                                           tuple(p["option_prefixes"]), p["library"])
            for p in json.loads(completed.stdout)}


def plugins(plugin_libraries=()):
    """The plugins a job can name, with their options: [Plugin] as `lanes plugins --json` describes them."""
    return list(catalogue(tuple(str(p) for p in plugin_libraries)).values())


def plugin(kind, name, libraries=()):
    """The plugin `name` of `kind`, or raises OptionError naming the known ones."""
    plugins = catalogue(tuple(libraries))
    found = plugins.get((kind, name))
    if found is None:
        known = ", ".join(sorted(n for k, n in plugins if k == kind))
        raise OptionError(f"unknown {kind} '{name}' (known: {known})")
    return found
