"""A job built in Python: the same plugins and options as a SPEC or a menu, checked as they are given against
the description `lanes plugins --json` gives (_plugins.py), printed as its menu, run by `lanes run` in a process of
its own (_run.py)."""

import copy
from dataclasses import dataclass, field
from pathlib import Path

from . import _locations, _menu, _plugins, _run
from ._analyzer import Analyzer
from ._errors import MenuError, OptionError

ON_ERROR = ("stop", "skip")


@dataclass
class Component:
    """One source, waiter, module or output: its plugin and options (lanes' keys; a list is a repeated option, a
    dict a family of options: produces={"muons": 4000} is produces.muons=4000), and for a module or output its
    label (an output's paths, `select`, too). A Python analyzer's module keeps the analyzer."""
    kind: str
    plugin: str
    options: dict = field(default_factory=dict)
    label: str = None
    select: list = None
    analyzer: Analyzer = None

    def entries(self):
        """The (key, value) pairs of its menu table."""
        return [("label", self.label), ("plugin", self.plugin), *self.options.items(), ("select", self.select)]


def checked_value(plugin, key, value):
    """A value a SPEC and a menu can both say: a string, number or boolean, or a list of them (a tuple is one)."""
    scalar = (str, int, float, bool)
    if isinstance(value, (list, tuple)) and all(isinstance(v, scalar) for v in value):
        return list(value)
    if isinstance(value, scalar):
        return value
    raise OptionError(f"{plugin.kind} '{plugin.name}': option '{key}' is a string, number or boolean (or a list of "
                      f"them), not {value!r}")


def checked_options(plugin, options):
    """`options` in lanes' spelling (fail_at is fail-at), each checked against the plugin's: OptionError names the
    first the plugin does not take. A dict is a family of options: produces={"muons": 4000} is
    produces.muons=4000."""
    checked = {}
    for name, given in options.items():
        if isinstance(given, dict):
            family = plugin.family(name, given)
            checked[family] = {label: checked_value(plugin, f"{family}.{label}", v) for label, v in given.items()}
        else:
            key = plugin.option(name)
            checked[key] = checked_value(plugin, key, given)
    return checked


class Job:
    """A lanes job: a source, waiters, modules, paths and outputs, with its threads, lanes and events (None: lanes'
    defaults: as many threads as the machine has cores, a lane per thread, 1000 events; 0 events: until the source
    ends), and what a failed event does (on_error: "stop" ends the job, "skip" drops the event).

        job = lanes.Job(threads=2, events=500)
        job.source("root", file="data/files/nanoAOD_2015_CMS_Open_Data_ttbar.root")
        job.module("producer", label="muons", consumes=["Muon_pt"], produces={"muons": 4000}, time=2e-4)
        job.output("dummy", label="out")
        result = job.run()

    Each method checks the plugin and its options as they are given (OptionError names the option and the plugin)
    and returns the job. print(job) prints its menu; Job.from_menu() reads one."""

    def __init__(self, threads=None, lanes=None, events=None, on_error="stop", plugin_libraries=()):
        for name, number in (("threads", threads), ("lanes", lanes), ("events", events)):
            if number is not None and (not isinstance(number, int) or isinstance(number, bool) or number < 0
                                       or (number == 0 and name != "events")):
                raise OptionError(f"{name} must be a {'whole number' if name == 'events' else 'positive whole number'}"
                                  f", not {number!r}")
        if on_error not in ON_ERROR:
            raise OptionError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
        self.threads, self.lanes, self.events, self.on_error = threads, lanes, events, on_error
        self.plugin_libraries = [Path(p).resolve() for p in plugin_libraries]
        self.source_spec = None
        self.waiters, self.modules, self.outputs, self.paths = [], [], [], []

    @classmethod
    def default(cls):
        """The built-in default job of `lanes run` (README: the default job): NanoAOD-sized synthetic events, a
        busy waiter per product, a dummy output."""
        job = cls()
        job.source("synthetic", profile=str(_locations.lanes_file("data/profiles/nanoaod.json")))
        job.waiter("busy", scale=1e-6)
        job.output("dummy", label="out")
        return job

    def _plugin(self, kind, name):
        return _plugins.plugin(kind, name, tuple(str(p) for p in self.plugin_libraries))

    def _label(self, given, plugin):
        """The label of a new module or output: `given`, else the plugin's name (numbered if repeated)."""
        used = {c.label for c in self.modules + self.outputs}
        if given is not None:
            if not isinstance(given, str) or not given:
                raise OptionError(f"a label is a non-empty string, not {given!r}")
            if given in used:
                raise OptionError(f"two modules are labelled '{given}'")
            return given
        label, n = plugin, 1
        while label in used:
            n += 1
            label = f"{plugin}#{n}"
        return label

    def source(self, plugin, **options):
        """Sets the source: `plugin` with its options (file="in.root", repeat=100, ...)."""
        found = self._plugin("source", plugin)
        self.source_spec = Component("source", plugin, checked_options(found, options))
        return self

    def waiter(self, plugin, **options):
        """Adds a waiter (busy, sleep, ...; products=["Muon_*"] for some products only)."""
        found = self._plugin("waiter", plugin)
        self.waiters.append(Component("waiter", plugin, checked_options(found, options)))
        return self

    def module(self, plugin, label=None, **options):
        """Adds a module: `plugin`, labelled `label` (default: the plugin's name), with its options."""
        found = self._plugin("module", plugin)
        checked = checked_options(found, options)
        self.modules.append(Component("module", plugin, checked, self._label(label, plugin)))
        return self

    def analyzer(self, analyzer):
        """Adds a Python analyzer (@lanes.analyzer), labelled as it says, run inside the job by the `python`
        module."""
        if not isinstance(analyzer, Analyzer):
            raise OptionError(f"job.analyzer() takes a @lanes.analyzer, not {analyzer!r}")
        self._plugin("module", "python")
        label = self._label(analyzer.label, "python")
        self.modules.append(Component("module", "python", {"function": analyzer.name}, label, analyzer=analyzer))
        return self

    def output(self, plugin, label=None, select=None, **options):
        """Adds an output: `plugin`, labelled `label`, writing the events that one of the paths `select` accepts
        (default: every event)."""
        found = self._plugin("output", plugin)
        checked = checked_options(found, options)
        if select is not None and (isinstance(select, str) or not all(isinstance(s, str) for s in select)):
            raise OptionError(f"select is a list of path names, not {select!r}")
        self.outputs.append(Component("output", plugin, checked, self._label(label, plugin),
                                      list(select) if select is not None else None))
        return self

    def path(self, name, modules):
        """Adds a path (a trigger path): the modules labelled `modules`, in order; a rejecting filter ends it."""
        if not isinstance(name, str) or not name or isinstance(modules, str) or not modules:
            raise OptionError(f"a path is a name and a list of module labels, not {name!r}, {modules!r}")
        if name in (n for n, _ in self.paths):
            raise OptionError(f"two paths are named '{name}'")
        self.paths.append((name, list(modules)))
        return self

    def copy(self):
        return copy.deepcopy(self)

    def run(self, report=None, trace=None, html=None, progress=True):
        """Runs the job with `lanes run`, in a process of its own, and returns its Result. `report`, `trace`,
        `html`: also keep the run report, the trace (Perfetto) or the HTML report in these files. `progress`: a tqdm
        bar (in a terminal and in Jupyter). A failed job raises JobError (its one-line error, and its result when it
        wrote its report); Ctrl-C, or interrupting the kernel, stops it as SIGINT stops `lanes run` (the events in
        flight finish, the outputs are committed or removed) and then raises KeyboardInterrupt."""
        return _run.run(self, report, trace, html, progress)

    def analyzers(self):
        """{label: Analyzer} of its Python analyzers."""
        return {m.label: m.analyzer for m in self.modules if m.analyzer is not None}

    def notes(self):
        """What the menu cannot say, said as comments at its top."""
        notes = []
        if self.on_error != "stop":
            notes.append(f"run with --on-error {self.on_error}")
        for label, found in self.analyzers().items():
            if found.function.__module__ == "__main__":
                notes.append(f"{label}: a Python analyzer defined in __main__ (a notebook, a script): job.run() "
                             "hands it to the job pickled; the command alone cannot import it")
        return notes

    def to_menu(self):
        """Its menu, as text (TOML)."""
        return _menu.write(self)

    def __str__(self):
        return self.to_menu()

    def __repr__(self):
        parts = [f"source {self.source_spec.plugin}" if self.source_spec else "no source",
                 f"{len(self.waiters)} waiters", f"{len(self.modules)} modules", f"{len(self.paths)} paths",
                 f"{len(self.outputs)} outputs"]
        return f"<lanes.Job: {', '.join(parts)}>"

    @classmethod
    def from_menu(cls, path):
        """The job a menu file describes (as `lanes run --menu` reads it), its plugins and options checked."""
        menu = _menu.read(path)
        settings = menu.get("job", {})
        unknown = sorted(set(settings) - set(_menu.JOB_KEYS))
        if unknown:
            raise MenuError(f"menu {path}: unknown key job.{unknown[0]} (known: {', '.join(_menu.JOB_KEYS)})")
        base = Path(path).resolve().parent
        libraries = [base / p for p in settings.get("plugin-libraries", [])]
        try:
            job = cls(settings.get("threads"), settings.get("lanes"), settings.get("events"),
                      plugin_libraries=libraries)
            if "source" in menu:
                job.source(**cls._plugin_table(menu["source"], path, "source"))
            for table in menu.get("waiter", []):
                job.waiter(**cls._plugin_table(table, path, "waiter"))
            for table in menu.get("module", []):
                job.module(**cls._plugin_table(table, path, "module"))
            for table in menu.get("path", []):
                job.path(table.get("name"), table.get("modules"))
            for table in menu.get("output", []):
                job.output(**cls._plugin_table(table, path, "output"))
        except OptionError as error:
            raise MenuError(f"menu {path}: {error}") from None
        return job

    @staticmethod
    def _plugin_table(table, path, section):
        """A plugin's table of a menu as the arguments of source(), waiter(), module() or output()."""
        if not isinstance(table, dict) or not isinstance(table.get("plugin"), str):
            raise MenuError(f"menu {path}: every [{section}] needs a string 'plugin'")
        return table
