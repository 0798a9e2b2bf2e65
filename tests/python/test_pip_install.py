"""`pip install .` into a fresh venv, then exactly `python -c "import lanes; print(lanes.Job.default().run()
.events_per_s)"` there, from another directory: the `lanes` command, the `lanes` package and the CMake package
installed into the venv, and found there.

So that pip downloads nothing and builds nothing twice, the venv reaches the project venv's packages (ROOT, numpy,
pandas...: one .pth line, as a venv given access to an installed ROOT wheel would), pip uses the build dependencies
found there (--no-build-isolation), and scikit-build-core builds in this checkout's build tree ($LANES_BUILD_DIR,
its build-dir), whose targets are built already: the test proves what pip installs and how it runs, not how long a
compiler takes. CTest keeps it apart from the other tests that use the build tree (RESOURCE_LOCK)."""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import REPO

BUILD = Path(os.environ.get("LANES_BUILD_DIR", REPO / "build"))


def check(command, **kwargs):
    completed = subprocess.run([str(c) for c in command], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                               **kwargs)
    assert completed.returncode == 0, f"{' '.join(map(str, command))}:\n{completed.stdout[-4000:]}\n{completed.stderr[-4000:]}"
    return completed


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    root = tmp_path_factory.mktemp("pip")
    venv = root / "venv"
    check([Path(sys.base_prefix) / "bin" / "python3", "-m", "venv", venv])
    site = Path(check([venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
                .stdout.strip())
    (site / "project-venv.pth").write_text(sysconfig.get_path("purelib") + "\n")
    environment = {k: v for k, v in os.environ.items() if k not in ("LANES_BINARY", "PYTHONPATH", "LANES_PYTHON")}
    check([venv / "bin" / "python", "-m", "pip", "install", "--no-build-isolation", f"--config-settings=build-dir={BUILD}",
           REPO], env=environment, cwd=root, timeout=1200)
    environment["PATH"] = f"{venv / 'bin'}:{environment['PATH']}"
    return venv, environment, root


def test_a_fresh_venv_gets_a_working_lanes(venv):
    venv, environment, root = venv
    completed = check([venv / "bin" / "python", "-c", "import lanes; print(lanes.Job.default().run().events_per_s)"],
                      env=environment, cwd=root, timeout=300)
    assert float(completed.stdout.strip().splitlines()[-1]) > 0
    where = check([venv / "bin" / "python", "-c", "import lanes, lanes._locations as l; print(lanes.__file__); "
                   "print(l.binary())"], env=environment, cwd=root).stdout.split()
    assert Path(where[0]).is_relative_to(venv) and Path(where[1]) == venv / "bin" / "lanes"


def test_the_command_and_its_files_are_in_the_venv(venv):
    venv, environment, root = venv
    assert shutil.which("lanes", path=environment["PATH"]) == str(venv / "bin" / "lanes")
    assert (venv / "share" / "lanes" / "data" / "profiles" / "nanoaod.json").is_file()
    assert not (venv / "share" / "lanes" / "python").exists()  # the package is in site-packages, once
    plugins = check(["lanes", "plugins", "--json"], env=environment, cwd=root).stdout
    assert str(venv / "lib" / "lanes" / "optional" / "liblanes_python.so") in plugins
    scan = check(["lanes", "scan", "--dry-run", "--vary", "threads=1,2", "--", "--source", "empty"], env=environment,
                 cwd=root)
    assert "2 points" in scan.stderr  # the venv's Python runs lanes' tools


def test_find_package_finds_lanes_from_the_venv(venv):
    venv, environment, root = venv
    project = root / "project"
    project.mkdir()
    (project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.20)\nproject(user LANGUAGES CXX)\n"
                                            "find_package(lanes REQUIRED)\nmessage(STATUS \"lanes: ${lanes_DIR}\")\n")
    configured = check(["cmake", "-S", project, "-B", project / "build", "-G", "Ninja"], env=environment, cwd=root,
                       timeout=300)
    assert f"lanes: {venv / 'lib' / 'cmake' / 'lanes'}" in configured.stdout
