"""Every ```python block of docs/python.md runs (as tests/docs runs the guide's ```sh blocks): each in a scratch
directory of its own where the repository's folders are linked, with the lanes of $LANES_BINARY."""

import os
import re
import subprocess
import sys

import pytest

from conftest import BINARY, REPO

PAGE = REPO / "docs" / "python.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", PAGE.read_text(), re.S | re.M)


def test_the_guide_has_python_blocks():
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_block_runs(block, tmp_path):
    for entry in REPO.iterdir():
        if entry.name not in (".git", "build"):
            (tmp_path / entry.name).symlink_to(entry)
    completed = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True,
                               timeout=240, stdin=subprocess.DEVNULL, env={**os.environ, "LANES_BINARY": str(BINARY)})
    assert completed.returncode == 0, f"{block}\n---\n{completed.stdout[-3000:]}{completed.stderr[-3000:]}"
