"""The installed lanes, made once for every test of tests/install (installed.py)."""

import pytest

from installed import BUILD, REPO, Installed, build_against, check


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    root = tmp_path_factory.mktemp("installed")
    here = Installed(root)
    check(["cmake", "--install", BUILD, "--prefix", here.prefix])
    build_against(here.prefix, REPO / "examples" / "external" / "dimuon", root / "dimuon", install=True)
    build_against(here.prefix, REPO / "tests" / "install" / "plugins", here.plugins)
    return here
