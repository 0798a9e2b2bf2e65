"""An installed lanes and the plugin libraries built against it, for the tests of tests/install (the fixture that
makes them, once a session, is conftest.py's `installed`).

`cmake --install` of this build into a temporary prefix; the example examples/external/dimuon configured, built and
installed against that prefix alone (find_package(lanes)), as a user would; the test plugins of tests/install/plugins
likewise.

$LANES_BUILD_DIR is the build to install (CTest sets it; default build/ of this checkout).
"""

import os
import shutil
import subprocess
from pathlib import Path


REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("LANES_BUILD_DIR", REPO / "build"))
NANOAOD = REPO / "data" / "files" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
MPI_ENVIRONMENT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                   "OMPI_MCA_hwloc_base_binding_policy": "none", "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def check(command, cwd=None):
    completed = subprocess.run([str(c) for c in command], capture_output=True, text=True, cwd=cwd,
                               stdin=subprocess.DEVNULL)
    assert completed.returncode == 0, f"{' '.join(map(str, command))}:\n{completed.stdout}\n{completed.stderr}"
    return completed


def build_against(prefix, source, binary, install=False):
    """Configures and builds the CMake project `source` against the lanes installed at `prefix` (and nothing else
    of this checkout), as its user would."""
    launcher = [f"-DCMAKE_CXX_COMPILER_LAUNCHER={shutil.which('ccache')}"] if shutil.which("ccache") else []
    check(["cmake", "-S", source, "-B", binary, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
           f"-DCMAKE_INSTALL_PREFIX={prefix}", *launcher])
    check(["cmake", "--build", binary, "-j2"])
    if install:
        check(["cmake", "--install", binary])


class Installed:
    def __init__(self, root):
        self.prefix = root / "prefix"
        self.lanes = self.prefix / "bin" / "lanes"
        self.dimuon = self.prefix / "lib" / "lanes" / "libdimuon.so"
        self.plugins = root / "plugins"
        self.crash = self.plugins / "libcrash.so"
        self.stray = self.plugins / "libstray.so"


def run(installed, *args, cwd, env=None, launcher=()):
    """`lanes ARGS` of the installed lanes in `cwd`, without LANES_PLUGIN_PATH unless `env` gives it."""
    environment = {k: v for k, v in os.environ.items() if k != "LANES_PLUGIN_PATH"}
    environment.update(env or {})
    return subprocess.run([*launcher, str(installed.lanes), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=environment, stdin=subprocess.DEVNULL, timeout=300)
