"""An installed lanes and plugin libraries built outside it, end to end.

`cmake --install` of this build into a temporary prefix; the example examples/external/dimuon configured, built
and installed against that prefix alone (find_package(lanes)), as a user would; the test plugins of
tests/install/plugins likewise. The installed lanes then runs the example on the real NanoAOD file at 1 and 2
threads, 2 processes and 2 MPI ranks, and uproot + numpy compute the same histogram independently, bin by bin; the
Python version of the example (examples/python/dimuon.py) fills the same histogram in the same job.
Each bad plugin library is refused in one line, exit status 2, before any event.

The installed lanes and the libraries built against it: installed.py.
"""

import json
import os
import pickle
import shutil
from pathlib import Path

import awkward as ak
import numpy as np
import pytest
import uproot

from installed import MPI_ENVIRONMENT, NANOAOD, REPO, run

DOUBLEMU = REPO / "data" / "files" / "Run2012BC_DoubleMuParked_Muons_1000evts_rntuple_v1-0-0-0.root"


INPUTS = {  # the source SPEC of each input file, and its collection of muons (or electrons)
    # the file: CMS NanoAOD ttbar, 200 events, 41 muons but no opposite-charge pair of them
    "nanoaod-muons": ("root:file=" + str(NANOAOD), "Muon"),
    "nanoaod-electrons": ("root:file=" + str(NANOAOD), "Electron"),
    # CMS Open Data DoubleMuParked, 1000 events of muon pairs (the J/psi, the Z): an RNTuple of RVec fields
    "doublemu": ("rntuple:file=" + str(DOUBLEMU), "Muon"),
}


def expected_histogram(source, collection):
    """The 102 counts (underflow, 100 bins of 2 GeV from 0, overflow) of the invariant masses of every
    opposite-charge pair of the collection in each event, from the file as uproot reads it."""
    names = [f"{collection}_{variable}" for variable in ("pt", "eta", "phi", "mass", "charge")]
    with uproot.open(source.split("=", 1)[1]) as file:
        events = file["Events"].arrays(names)
    pt, eta, phi, mass = (ak.values_astype(events[name], np.float64) for name in names[:4])
    px, py, pz = pt * np.cos(phi), pt * np.sin(phi), pt * np.sinh(eta)
    particles = ak.zip({"px": px, "py": py, "pz": pz, "e": np.sqrt(px**2 + py**2 + pz**2 + mass**2),
                        "q": events[names[4]]})
    a, b = ak.unzip(ak.combinations(particles, 2))
    opposite = a.q * b.q < 0
    a, b = a[opposite], b[opposite]
    squared = (a.e + b.e)**2 - (a.px + b.px)**2 - (a.py + b.py)**2 - (a.pz + b.pz)**2
    masses = ak.to_numpy(ak.flatten(np.sqrt(np.maximum(squared, 0))))
    counts = np.zeros(102)
    np.add.at(counts, np.where(masses >= 200, 101, 1 + np.floor(masses / 2).astype(int)), 1)
    return counts


@pytest.fixture(scope="module")
def expected():
    counts = {name: expected_histogram(*INPUTS[name]) for name in INPUTS}
    assert counts["doublemu"][1:101].sum() > 1000  # pairs enough for the comparison to mean something
    return counts


def assert_histogram(path, expected):
    with uproot.open(path) as file:
        histogram = file["dimuon"]
        assert histogram.classname == "TH1D"
        assert list(histogram.axis().edges()) == [2.0 * b for b in range(101)]
        assert list(histogram.values(flow=True)) == list(expected)


JOBS = {
    "1-thread": ["-t", "1"],
    "2-threads": ["-t", "2", "-l", "4"],
    "2-processes": ["-p", "2", "-t", "1", "--chunk", "20"],
    "2-mpi-ranks": ["-t", "1", "--chunk", "20"],
}
CASES = [(job, data) for job in JOBS for data in INPUTS if data == "doublemu" or job in ("1-thread", "2-processes")]


@pytest.mark.parametrize("job,data", CASES)
def test_the_example_fills_the_histogram_uproot_and_numpy_compute(installed, expected, job, data, tmp_path):
    launcher = ()
    if job.endswith("mpi-ranks"):
        if os.environ.get("LANES_MPI") != "1":
            pytest.skip("this lanes is built without MPI")
        launcher = ("mpirun", "--oversubscribe", "-np", "2")
    source, collection = INPUTS[data]
    result = run(installed, "run", "-n", "0", *JOBS[job], "--plugin-library", installed.dimuon, "--source", source,
                 "--output", f"dimuon:file=mass.root,collection={collection}", "--report", "report.json",
                 cwd=tmp_path, env=MPI_ENVIRONMENT if launcher else None, launcher=launcher)
    assert result.returncode == 0, result.stderr
    assert_histogram(tmp_path / "mass.root", expected[data])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mass.root", "report.json"]  # no part, no partial file
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["events"] == (1000 if data == "doublemu" else 200)
    if job == "1-thread":
        assert report["plugin_libraries"] == [{"path": str(installed.dimuon.resolve()), "from": "--plugin-library",
                                               "stamp": report["plugin_libraries"][0]["stamp"]}]
        details = {m["label"]: m.get("details") for m in report["modules"]}["dimuon"]
        assert details["pairs"] == expected[data].sum() and details["events_written"] == report["events"]
        assert details["committed"]


def test_the_python_dimuon_fills_the_histogram_of_the_cpp_example_bin_for_bin(installed, expected, tmp_path):
    """examples/python/dimuon.py, a Python analyzer, and the C++ example in one job of the installed lanes (its
    Python package and its optional python module): every bin of the two equal, under- and overflow included."""
    analyzer = REPO / "examples" / "python" / "dimuon.py"
    result = run(installed, "run", "-n", "0", "-t", "2", "--plugin-library", installed.dimuon, "--source",
                 INPUTS["doublemu"][0], "--output", "dimuon:file=mass.root", "--module",
                 f"python:function={analyzer}:dimuon,results=mass.pickle", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with open(tmp_path / "mass.pickle", "rb") as f:
        python = pickle.load(f)
    with uproot.open(tmp_path / "mass.root") as file:
        cpp = file["dimuon"].values(flow=True)
    assert list(python["mass"].values(flow=True)) == list(cpp) == list(expected["doublemu"])
    assert python["pairs"] == expected["doublemu"].sum()


def test_a_menu_names_its_plugin_libraries_relative_to_itself(installed, expected, tmp_path):
    menus = tmp_path / "menus"
    menus.mkdir()
    library = os.path.relpath(installed.dimuon, menus)
    (menus / "dimuon.toml").write_text(f"""
[job]
plugin-libraries = ["{library}"]
events = 0

[source]
plugin = "rntuple"
file = "{DOUBLEMU}"

[[output]]
label = "dimuon"
plugin = "dimuon"
file = "./mass.root"
""")
    result = run(installed, "run", "-t", "2", "--menu", menus / "dimuon.toml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert_histogram(menus / "mass.root", expected["doublemu"])


def plugins_json(installed, *args, cwd, env=None):
    result = run(installed, "plugins", "--json", *args, cwd=cwd, env=env)
    assert result.returncode == 0, result.stderr
    return {(p["kind"], p["name"]): p for p in json.loads(result.stdout)}


def test_lanes_plugins_lists_a_librarys_plugins_with_where_they_come_from(installed, tmp_path):
    plugins = plugins_json(installed, "--plugin-library", installed.dimuon, cwd=tmp_path)
    assert plugins[("output", "dimuon")]["library"] == str(installed.dimuon.resolve())
    assert plugins[("waiter", "busy")]["library"] is None  # built in
    assert ("output", "dimuon") not in plugins_json(installed, cwd=tmp_path)


def test_lanes_plugin_path_loads_every_library_of_its_directories(installed, tmp_path):
    plugins = plugins_json(installed, cwd=tmp_path, env={"LANES_PLUGIN_PATH": f"{tmp_path}::{installed.dimuon.parent}"})
    assert plugins[("output", "dimuon")]["library"] == str(installed.dimuon.resolve())


def test_a_plugin_librarys_process_maps_one_oneTBB_and_one_ROOT(installed, tmp_path):
    result = run(installed, "run", "-n", "2", "-t", "2", "--plugin-library", installed.plugins / "libruntimes.so",
                 "--source", "empty", "--module", "runtimes", "--report", "report.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    details = {m["label"]: m.get("details") for m in report["modules"]}["runtimes"]
    assert len(details["tbb"]) == 1 and len(details["root_core"]) == 1, details
    assert details["tbb_concurrency"] == 2  # the job's arena, seen from the library: the same runtime
    if "/site-packages/ROOT/" in details["root_core"][0]:  # ROOT's wheel: its libtbb is the one
        assert Path(details["tbb"][0]).parent == Path(details["root_core"][0]).parent


def test_the_installed_lanes_runs_its_default_job_and_its_python_tools(installed, tmp_path):
    assert run(installed, "run", "-n", "20", "-t", "1", cwd=tmp_path).returncode == 0  # the profile in share/lanes
    result = run(installed, "scan", "--plugin-library", installed.dimuon, "-o", "scan", "--vary", "threads=1,2",
                 "--", "-n", "0", "--source", INPUTS["doublemu"][0], "--output", "dimuon:file=mass.root",
                 cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = json.loads((tmp_path / "scan" / "table.json").read_text())["rows"]
    assert len(rows) == 2 and not any(row["failed"] for row in rows)


def test_the_installed_tree_holds_the_plugin_api_and_no_private_header(installed):
    headers = {str(p.relative_to(installed.prefix / "include")) for p in (installed.prefix / "include").rglob("*.h")}
    assert {"lanes/core/ModuleTypes.h", "lanes/core/PluginRegistry.h", "lanes/core/Completion.h", "lanes/core/Lumi.h",
            "lanes/core/Conditions.h", "lanes/core/Version.h", "lanes/monitor/DeviceTrace.h"} <= headers
    assert not headers & {"lanes/core/EventProcessor.h", "lanes/core/JobConfig.h", "lanes/monitor/RunReport.h"}
    assert not any(h.startswith("lanes/node/") for h in headers)


def stamped_otherwise(library, directory, old, new):
    """A copy of `library` whose stamp says `new` where it said `old` (as long)."""
    data = library.read_bytes()
    assert data.count(old) == 1 and len(old) == len(new)
    copy = directory / "libdimuon-other.so"
    copy.write_bytes(data.replace(old, new))
    return copy


def version(installed, macro):
    """A macro's value in the installed lanes/core/Version.h: LANES_RELEASE, LANES_PLUGIN_API."""
    text = (installed.prefix / "include" / "lanes" / "core" / "Version.h").read_text()
    return text.split(f'#define {macro} "')[1].split('"')[0]


def another_release(installed, tmp):
    release = version(installed, "LANES_RELEASE")
    return stamped_otherwise(installed.dimuon, tmp, f"lanes {release} (".encode(), f"lanes {'9' * len(release)} (".encode())


def another_api(installed, tmp):
    api = version(installed, "LANES_PLUGIN_API")
    return stamped_otherwise(installed.dimuon, tmp, f"(plugin API {api})".encode(), f"(plugin API {'0' * len(api)})".encode())


def text_file(installed, tmp):
    (tmp / "libnotes.so").write_text("not a library\n")
    return tmp / "libnotes.so"


BAD_LIBRARIES = {
    "not found": (lambda installed, tmp: tmp / "libmissing.so", "is not found"),
    "a directory": (lambda installed, tmp: tmp, "is not a file"),
    "a text file": (text_file, "is not a lanes plugin library"),
    "without the stamp": (lambda installed, tmp: installed.plugins / "libunstamped.so", "is not a lanes plugin library"),
    "another release": (another_release, "was built against lanes 9"),
    "another plugin API": (another_api, "(plugin API 000000000000), but this is lanes"),
    "an undefined symbol": (lambda installed, tmp: installed.plugins / "libundefined_symbol.so",
                            "undefined symbol: lanesTestDefinedNowhere()"),
    "a built-in name": (lambda installed, tmp: installed.plugins / "libbuiltin_name.so",
                        "registers module 'busy', which is built into lanes"),
}


@pytest.mark.parametrize("case", BAD_LIBRARIES)
def test_a_bad_plugin_library_is_refused_in_one_line_before_any_event(installed, case, tmp_path):
    make, message = BAD_LIBRARIES[case]
    library = make(installed, tmp_path)
    result = run(installed, "run", "-n", "5", "--plugin-library", library, "--source", f"root:file={NANOAOD}",
                 "--output", "dimuon:file=mass.root", cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanes: error: plugin library ") and message in lines[0], lines
    assert not (tmp_path / "mass.root").exists()
    if case.startswith("another"):  # naming both
        assert lines[0].count("(plugin API ") == 2


def test_two_libraries_that_register_one_name_are_refused(installed, tmp_path):
    copy = tmp_path / "libdimuon-copy.so"
    shutil.copy(installed.dimuon, copy)
    result = run(installed, "plugins", "--plugin-library", installed.dimuon, "--plugin-library", copy, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"lanes: error: plugin library '{copy.resolve()}' registers output 'dimuon', which "
                                          f"'{installed.dimuon.resolve()}' registers already"]


def test_a_bad_library_in_lanes_plugin_path_is_refused(installed, tmp_path):
    (tmp_path / "libnotes.so").write_text("not a library\n")
    for path, message in ((tmp_path / "missing", "names '" + str(tmp_path / "missing") + "', which is not a directory"),
                          (tmp_path, f"plugin library '{tmp_path / 'libnotes.so'}' is not a lanes plugin library")):
        result = run(installed, "plugins", cwd=tmp_path, env={"LANES_PLUGIN_PATH": str(path)})
        assert result.returncode == 2
        assert len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr


EXAMPLE_BAD_INPUTS = {
    "no file": ("dimuon", "option 'file'"),
    "no such collection": ("dimuon:file=mass.root,collection=Nothing", "keep=Nothing_pt matches no product"),
    "a missing directory": ("dimuon:file=nowhere/mass.root", "(file=nowhere/mass.root): directory 'nowhere' does not exist"),
}


@pytest.mark.parametrize("case", EXAMPLE_BAD_INPUTS)
def test_the_example_refuses_bad_options_in_one_line(installed, case, tmp_path):
    spec, message = EXAMPLE_BAD_INPUTS[case]
    result = run(installed, "run", "-n", "5", "--plugin-library", installed.dimuon, "--source",
                 f"root:file={NANOAOD}", "--output", spec, cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanes: error: ") and message in lines[0], lines


def test_the_example_refuses_products_of_another_type(installed, tmp_path):
    result = run(installed, "run", "-n", "5", "--plugin-library", installed.dimuon, "--source",
                 "synthetic:size.Muon_pt=8,size.Muon_eta=8,size.Muon_phi=8,size.Muon_mass=8,size.Muon_charge=4",
                 "--output", "dimuon:file=mass.root", cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "product 'Muon_pt' is a lanes::SyntheticBytes, not a std::vector<float" in lines[0], lines
    assert not (tmp_path / "mass.root").exists()


def copy_of_dimuon(installed, directory, mode=0o755):
    """A copy of the example's library in `directory` (made 0o700 unless it exists), with `mode`."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    copy = directory / "libdimuon.so"
    shutil.copy(installed.dimuon, copy)
    copy.chmod(mode)
    return copy


def as_root_only(case):
    if os.geteuid() != 0:
        pytest.skip(f"{case}: only root can give a file to another user")


def refusal(result):
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanes: error: "), lines
    return lines[0]


@pytest.mark.parametrize("mode", [0o666, 0o664, 0o646])
def test_a_library_writable_by_others_is_refused_naming_it_and_why(installed, mode, tmp_path):
    library = copy_of_dimuon(installed, tmp_path / "lib", mode)
    line = refusal(run(installed, "plugins", "--plugin-library", library, cwd=tmp_path))
    assert line == (f"lanes: error: plugin library '{library}' is writable by others than its owner (mode {mode:04o}): "
                    "anyone who can change it runs code in your jobs (chmod go-w, or chown it)")


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_a_library_in_a_directory_others_can_write_is_refused(installed, mode, tmp_path):
    library = copy_of_dimuon(installed, tmp_path / "shared" / "lib")
    (tmp_path / "shared").chmod(mode)
    line = refusal(run(installed, "plugins", "--plugin-library", library, cwd=tmp_path))
    assert line == (f"lanes: error: plugin library '{library}' lies in '{tmp_path / 'shared'}', which is writable by "
                    f"others than its owner (mode {mode:04o}): anyone who can write there can replace it")


def test_a_library_under_a_sticky_directory_for_all_loads(installed, tmp_path):
    """Others may add entries to a sticky directory (/tmp), but not replace the library's directory in it."""
    library = copy_of_dimuon(installed, tmp_path / "sticky" / "lib")
    (tmp_path / "sticky").chmod(0o1777)
    plugins = json.loads(run(installed, "plugins", "--json", "--plugin-library", library, cwd=tmp_path).stdout)
    assert {p["name"]: p["library"] for p in plugins}["dimuon"] == str(library)


@pytest.mark.parametrize("what", ["the library", "its directory"])
def test_a_library_owned_by_another_user_is_refused(installed, what, tmp_path):
    as_root_only(what)
    library = copy_of_dimuon(installed, tmp_path / "lib")
    owned = library if what == "the library" else library.parent
    os.chown(owned, 65534, 65534)
    line = refusal(run(installed, "plugins", "--plugin-library", library, cwd=tmp_path))
    expected = "is owned by uid 65534, neither you nor root"
    assert line.startswith(f"lanes: error: plugin library '{library}' ") and expected in line, line
    if what == "its directory":
        assert f"lies in '{library.parent}', which {expected}" in line


def test_a_menus_library_others_can_write_is_refused(installed, tmp_path):
    library = copy_of_dimuon(installed, tmp_path / "lib", 0o666)
    (tmp_path / "menu.toml").write_text(f'[job]\nplugin-libraries = ["{library}"]\n[source]\nplugin = "empty"\n')
    line = refusal(run(installed, "run", "-n", "1", "--menu", "menu.toml", cwd=tmp_path))
    assert f"plugin library '{library}' is writable by others than its owner (mode 0666)" in line


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o770])
def test_a_lanes_plugin_path_directory_others_can_write_is_refused_even_sticky(installed, mode, tmp_path):
    directory = copy_of_dimuon(installed, tmp_path / "plugins").parent
    directory.chmod(mode)
    line = refusal(run(installed, "plugins", cwd=tmp_path, env={"LANES_PLUGIN_PATH": str(directory)}))
    assert line == (f"lanes: error: LANES_PLUGIN_PATH names '{directory}', which is writable by others than its owner "
                    f"(mode {mode:04o}): anyone who can write there runs code in your jobs (chmod go-w, or chown it)")


def test_the_report_names_each_library_and_how_it_was_named(installed, tmp_path):
    given = copy_of_dimuon(installed, tmp_path / "given")
    (tmp_path / "path").mkdir(mode=0o700)
    shutil.copy(installed.crash, tmp_path / "path")
    (tmp_path / "menu.toml").write_text(f'[job]\nplugin-libraries = ["{installed.plugins / "libruntimes.so"}"]\n'
                                        '[source]\nplugin = "empty"\n')
    result = run(installed, "run", "-n", "1", "--menu", "menu.toml", "--plugin-library", given, "--report",
                 "report.json", cwd=tmp_path, env={"LANES_PLUGIN_PATH": str(tmp_path / "path")})
    assert result.returncode == 0, result.stderr
    loaded = json.loads((tmp_path / "report.json").read_text())["plugin_libraries"]
    assert [(library["path"], library["from"]) for library in loaded] == [
        (str(given), "--plugin-library"), (str(installed.plugins / "libruntimes.so"), "menu"),
        (str(tmp_path / "path" / "libcrash.so"), "LANES_PLUGIN_PATH")]
