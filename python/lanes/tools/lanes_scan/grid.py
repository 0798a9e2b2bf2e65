"""The scan's grid: the axes and their grammar, the points, and each run's `lanes run` command lines.

An axis is NAME=V1,V2,... where NAME is
  threads, lanes, processes, events     -t, -l, -p, -n (positive integers; events 0: until the source ends)
  pin, accel, accel-strategy             --pin, --accel, --accel-strategy
  COMPONENT[SELECTOR][.KEY]              a SPEC of the fixed arguments: COMPONENT is source, output, module or waiter;
                                         SELECTOR picks one (an index from 0, or a module's label= or plugin name;
                                         default: the first); .KEY sets that option, without it the value replaces
                                         the plugin (a value with ':' replaces the whole SPEC).
Values are separated by commas; one that holds a comma goes in double quotes, as in a SPEC:
output.file="a,b.root","c.root" (in them \" is a quote and \\ a backslash).
"""

import itertools
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

PROCEDURES = ("fixed", "per-thread", "fill-machine")
INTEGER_AXES = {"threads": "-t", "lanes": "-l", "processes": "-p", "events": "-n"}
WORD_AXES = {"pin": "--pin", "accel": "--accel", "accel-strategy": "--accel-strategy"}
COMPONENTS = {"source": "--source", "output": "--output", "module": "--module", "waiter": "--waiter"}
COMPONENT_AXIS = re.compile(r"^(source|output|module|waiter)(?:\[([^\]]+)\])?(?:\.([^.=\s][^=\s]*))?$")

# `lanes run` options that take a value; anything else passes through as it is.
VALUE_OPTIONS = {"-t", "-l", "-n", "-p", "--source", "--waiter", "--module", "--output", "--menu", "--report",
                 "--trace", "--on-error", "--pin", "--distribution", "--chunk", "--events-before-fork",
                 "--output-mode", "--accel", "--accel-strategy", "--plugin-library"}
LONG_NAMES = {"--threads": "-t", "--lanes": "-l", "--events": "-n", "--processes": "-p"}


class ScanError(Exception):
    """A bad scan definition, found before anything runs: one line, exit status 2."""


def _quoted(text, start):
    """The value in double quotes that opens at text[start] (lanes' rule: \" is a quote, \\ a backslash, any other
    character itself) and where it ends, past its closing quote. Raises ScanError if it is not closed."""
    value, i = [], start + 1
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in '"\\':
            value.append(text[i + 1])
            i += 2
        elif c == '"':
            return "".join(value), i + 1
        else:
            value.append(c)
            i += 1
    raise ScanError(f"a value in {text!r} opens a quote that it does not close")


def split_values(text):
    """`text` split at its commas, but for those in a value in double quotes (one that starts the text, follows a
    comma or an '='), as lanes splits a SPEC; the quotes stay."""
    parts, start, i = [], 0, 0
    while i <= len(text):
        if i < len(text) and text[i] == '"' and (i == start or text[i - 1] == "="):
            i = _quoted(text, i)[1]
        elif i == len(text) or text[i] == ",":
            parts.append(text[start:i])
            start = i = i + 1
        else:
            i += 1
    return parts


def unquote(value):
    """A value as lanes reads it: the text in its double quotes, if it starts with one."""
    if not value.startswith('"'):
        return value
    inner, end = _quoted(value, 0)
    if end != len(value):
        raise ScanError(f"text after the closing quote of {value!r}")
    return inner


def quote(value):
    """A value as a SPEC must give it: in double quotes if it holds a comma or starts with a quote."""
    if "," not in value and not value.startswith('"'):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class Spec:
    """A plugin SPEC, name:key=value,key=value (keys may repeat; a value that holds a comma is in double quotes)."""

    plugin: str
    options: list = field(default_factory=list)  # [key, value] pairs, in order, values unquoted

    @staticmethod
    def parse(text):
        plugin, _, rest = text.partition(":")
        options = [option.split("=", 1) for option in split_values(rest) if option]
        return Spec(plugin, [[o[0], unquote(o[1])] if len(o) > 1 else o for o in options])

    def set(self, key, value):
        """Replaces every `key` by one key=value, where the first was (appended if none)."""
        places = [i for i, option in enumerate(self.options) if option[0] == key]
        if not places:
            self.options.append([key, value])
            return
        self.options[places[0]] = [key, value]
        self.options = [o for i, o in enumerate(self.options) if i not in places[1:]]

    def get(self, key):
        return next((option[1] for option in self.options if option[0] == key and len(option) > 1), None)

    def __str__(self):
        options = [o[0] + "=" + quote(o[1]) if len(o) > 1 else o[0] for o in self.options]
        return self.plugin + (":" + ",".join(options) if options else "")


def parse_run_arguments(words):
    """`lanes run` arguments as [option, value] pairs (value None for flags and unknown words)."""
    items, words = [], list(words)
    while words:
        word = words.pop(0)
        name, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        name = LONG_NAMES.get(name, name)
        if name not in VALUE_OPTIONS:
            items.append([word, None])
        elif equals:
            items.append([name, value])
        elif not words:
            raise ScanError(f"the run argument {word} needs a value")
        else:
            items.append([name, words.pop(0)])
    return items


def menu_writes_files(path):
    """Whether a menu's outputs name files (which concurrent copies would share)."""
    try:
        with open(path, "rb") as menu:
            outputs = tomllib.load(menu).get("output", [])
    except (OSError, tomllib.TOMLDecodeError):
        return False  # lanes run names the problem, as the point's failure
    return any("file" in output for output in outputs if isinstance(output, dict))


def flatten(items):
    return [word for item in items for word in (item if item[1] is not None else item[:1])]


@dataclass(frozen=True)
class Axis:
    name: str
    values: tuple

    @staticmethod
    def parse(text):
        """NAME=V1,V2,... from the command line."""
        name, equals, values = text.partition("=")
        if not equals:
            raise ScanError(f"--vary {text}: expected NAME=VALUE,VALUE,...")
        return Axis.of(name.strip(), split_values(values))

    @staticmethod
    def of(name, values):
        values = tuple(str(v).strip() for v in values)
        if not values or any(not v for v in values):
            raise ScanError(f"axis {name}: empty value in {','.join(values)!r}")
        if len(set(values)) != len(values):
            raise ScanError(f"axis {name}: a value is given twice")
        if name in INTEGER_AXES:
            for v in values:
                if not v.isdigit() or (int(v) == 0 and name != "events"):
                    raise ScanError(f"axis {name}: {v!r} is not a positive integer")
        elif name not in WORD_AXES and not COMPONENT_AXIS.match(name):
            raise ScanError(f"unknown axis {name!r}: expected threads, lanes, processes, events, pin, accel, "
                            "accel-strategy, or source/output/module/waiter[SELECTOR][.KEY]")
        return Axis(name, values)


def find_component(items, axis):
    """Index in `items` of the SPEC an axis names; None if it would be created. Raises ScanError if it cannot map."""
    component, selector, key = COMPONENT_AXIS.match(axis.name).groups()
    places = [i for i, item in enumerate(items) if item[0] == COMPONENTS[component]]
    if selector is None and places:
        return places[0]
    if selector is not None and selector.isdigit() and int(selector) < len(places):
        return places[int(selector)]
    for i in places:
        spec = Spec.parse(items[i][1])
        if selector in (spec.get("label"), spec.plugin):
            return i
    if selector is None and key is None and component in ("source", "output"):
        return None
    menu = " (a menu's components cannot be varied: give it on the command line)" if any(
        item[0] == "--menu" for item in items) else ""
    which = f" {selector!r}" if selector is not None else ""
    raise ScanError(f"axis {axis.name}: the run arguments have no {COMPONENTS[component]}{which}{menu}")


def apply_axis(items, axis, value):
    """`items` with the axis set to `value` (a copy)."""
    items = [list(item) for item in items]
    option = INTEGER_AXES.get(axis.name) or WORD_AXES.get(axis.name)
    if option:
        return items + [[option, value]]
    component, _, key = COMPONENT_AXIS.match(axis.name).groups()
    place = find_component(items, axis)
    if place is None:
        return items + [[COMPONENTS[component], value]]
    spec = Spec.parse(items[place][1])
    if key is not None:
        spec.set(key, unquote(value))
    elif ":" in value:
        spec = Spec.parse(value)
    else:
        spec.plugin = value
    items[place][1] = str(spec)
    return items


@dataclass(frozen=True)
class Point:
    index: int
    values: dict  # axis name -> value, in axis order

    @property
    def id(self):
        return f"p{self.index:03d}"

    def typed(self):
        """The values, the integer axes' as integers (for the table and the summary)."""
        return {k: int(v) if k in INTEGER_AXES else v for k, v in self.values.items()}

    def label(self):
        return " ".join(f"{k}={v}" for k, v in self.values.items()) or "(one point)"


@dataclass
class Scan:
    """What a scan measures; immutable once checked."""

    fixed: list          # `lanes run` arguments, [option, value] pairs
    axes: list           # Axis
    procedure: str = "fixed"
    events: int = None   # per point (per copy); None: the fixed -n, else 1000
    repeat: int = 1
    cores: int = None    # fill-machine's machine size; None: os.cpu_count()

    def check(self):
        """Raises ScanError at the first problem."""
        if self.procedure not in PROCEDURES:
            raise ScanError(f"procedure must be one of {', '.join(PROCEDURES)}, not {self.procedure!r}")
        if self.repeat < 1:
            raise ScanError("repeat must be at least 1")
        if self.cores is not None and self.cores < 1:
            raise ScanError("cores must be at least 1")
        names = [axis.name for axis in self.axes]
        if len(set(names)) != len(names):
            raise ScanError(f"axis {next(n for n in names if names.count(n) > 1)} is given twice")
        if any(item[0] == "--report" for item in self.fixed):
            raise ScanError("the run arguments must not give --report: the scan writes each run's report")
        for axis in self.axes:
            option = INTEGER_AXES.get(axis.name) or WORD_AXES.get(axis.name)
            if option and any(item[0] == option for item in self.fixed):
                raise ScanError(f"axis {axis.name} varies {option}, which the run arguments also give")
            if not option:
                find_component(self.fixed, axis)
        given = [item[1] for item in self.fixed if item[0] == "-n"]
        if given and self.events is not None:
            raise ScanError("the events are given twice: --events (or the scan's events) and -n in the run arguments")
        if self.procedure == "fill-machine" and any(menu_writes_files(i[1]) for i in self.fixed if i[0] == "--menu"):
            raise ScanError("fill-machine cannot give each copy its own files when a menu's outputs name them: "
                            "give the outputs as --output")
        base = self.base_events()
        if self.procedure == "per-thread" and (base == 0 or "0" in self.axis_values("events")):
            raise ScanError("per-thread needs a number of events: -n 0 (until the source ends) cannot scale")

    def axis_values(self, name):
        return next((axis.values for axis in self.axes if axis.name == name), ())

    def base_events(self):
        given = [item[1] for item in self.fixed if item[0] == "-n"]
        if self.events is not None:
            return self.events
        if given and not given[-1].isdigit():
            raise ScanError(f"-n {given[-1]}: not a number of events")
        return int(given[-1]) if given else 1000

    def machine_cores(self):
        return self.cores or os.cpu_count() or 1

    def points(self):
        combos = itertools.product(*(axis.values for axis in self.axes))
        return [Point(i + 1, dict(zip((a.name for a in self.axes), combo))) for i, combo in enumerate(combos)]

    def describe(self):
        """The scan's identity, as the manifest records it (a resumed scan must match it)."""
        return {"run_arguments": flatten(self.fixed), "axes": {a.name: list(a.values) for a in self.axes},
                "procedure": self.procedure, "events": self.base_events(), "repeat": self.repeat,
                "cores": self.machine_cores()}

    def plan(self, point):
        """{threads, processes, events (per copy), copies, items}: how `point` runs."""
        items = [item for item in self.fixed if item[0] not in ("-t", "-n", "-p")]
        for axis in self.axes:
            if axis.name not in ("threads", "events", "processes"):
                items = apply_axis(items, axis, point.values[axis.name])
        threads = int(point.values.get("threads") or self._fixed("-t") or self.machine_cores())
        processes = int(point.values.get("processes") or self._fixed("-p") or 0)
        events = int(point.values.get("events") or self.base_events())
        copies = 1
        if self.procedure == "per-thread":
            events *= threads * max(processes, 1)
        elif self.procedure == "fill-machine":
            copies = max(1, self.machine_cores() // (threads * max(processes, 1)))
        return {"threads": threads, "processes": processes, "events": events, "copies": copies, "items": items}

    def _fixed(self, option):
        given = [item[1] for item in self.fixed if item[0] == option]
        if given and not given[-1].isdigit():
            raise ScanError(f"{option} {given[-1]}: not a positive integer")
        return given[-1] if given else None


def copy_command(lanes, plan, report, files_prefix, trace=None):
    """One copy's `lanes run` command: its own report, and its own output files (FILES_PREFIX + the file's name)."""
    items = [list(item) for item in plan["items"]]
    for item in items:
        if item[0] == "--output":
            spec = Spec.parse(item[1])
            spec.options = [[o[0], f"{files_prefix}{Path(o[1]).name}"] if o[0] == "file" and len(o) > 1 else o
                            for o in spec.options]
            item[1] = str(spec)
        elif item[0] == "--trace":
            item[1] = str(trace)
    command = [str(lanes), "run", *flatten(items), "-t", str(plan["threads"]), "-n", str(plan["events"])]
    if plan["processes"]:
        command += ["-p", str(plan["processes"])]
    return command + ["--report", str(report)]
