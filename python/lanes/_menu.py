"""A job as the TOML menu `lanes run --menu` reads (cli/Menu.h), and back: [job], [source], [[waiter]],
[[module]], [[path]], [[output]]; every key of a plugin's table but the structural ones (plugin, label, select) is
one of its options, an array a repeated option, an inline table a family of options (produces.muons = 4000)."""

import json
import math
import re
import tomllib
from pathlib import Path

from ._errors import MenuError

JOB_KEYS = ("threads", "lanes", "events", "plugin-libraries")
SECTIONS = ("job", "source", "waiter", "module", "path", "output")
BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def key(name):
    return name if BARE_KEY.match(name) else json.dumps(name)


def value(v):
    """A TOML value of a job: a string, number, boolean, array of them, or inline table."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise MenuError(f"{v} has no place in a menu")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # TOML's basic strings escape as JSON's do
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(e) for e in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(e)}" for k, e in v.items()) + " }"
    raise MenuError(f"{v!r} ({type(v).__name__}) has no place in a menu: give a string, number, boolean, list or "
                    "dict")


def table(header, entries):
    """`[header]` and its `key = value` lines, None values left out."""
    lines = [header] + [f"{key(k)} = {value(v)}" for k, v in entries if v is not None]
    return "\n".join(lines)


def write(job):
    """The menu of `job` (a Job), as text."""
    blocks = []
    settings = [("threads", job.threads), ("lanes", job.lanes), ("events", job.events),
                ("plugin-libraries", [str(p) for p in job.plugin_libraries] or None)]
    if any(v is not None for _, v in settings):
        blocks.append(table("[job]", settings))
    if job.source_spec is not None:
        blocks.append(table("[source]", job.source_spec.entries()))
    blocks += [table("[[waiter]]", w.entries()) for w in job.waiters]
    blocks += [table("[[module]]", m.entries()) for m in job.modules]
    blocks += [table("[[path]]", [("name", name), ("modules", list(modules))]) for name, modules in job.paths]
    blocks += [table("[[output]]", o.entries()) for o in job.outputs]
    notes = job.notes()
    return "".join(f"# {note}\n" for note in notes) + ("\n" if notes else "") + "\n\n".join(blocks) + "\n"


def read(path):
    """The menu at `path` as {section: tables}, strings that start with ./ or ../ made relative to its directory
    (as lanes reads them)."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            menu = tomllib.load(f)
    except OSError as error:
        raise MenuError(f"cannot read the menu {path}: {error.strerror}")
    except tomllib.TOMLDecodeError as error:
        raise MenuError(f"menu {path}: {error}")
    unknown = sorted(set(menu) - set(SECTIONS))
    if unknown:
        raise MenuError(f"menu {path}: unknown section '{unknown[0]}' (known: {', '.join(SECTIONS)})")
    base = path.resolve().parent

    def resolve(v):
        if isinstance(v, str) and v.startswith(("./", "../")):
            return str((base / v).resolve())
        if isinstance(v, list):
            return [resolve(e) for e in v]
        if isinstance(v, dict):
            return {k: resolve(e) for k, e in v.items()}
        return v

    return {section: resolve(content) for section, content in menu.items()}
