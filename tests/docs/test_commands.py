"""Every command in the documentation runs: each ```sh block of README.md, docs/*.md and core/README.md is run by
bash (-e: the first command that fails fails the block) in a scratch directory of its own, where the repository's
folders are linked (build/ is the build of $LANES_BINARY), so that what a block writes stays there.

A block runs as written, but for these rewrites, which keep every long job short:
  - `scripts/run ARGS` is `build/bin/lanes run ARGS`: the same command once scripts/setup has set up and built,
    which this test does not repeat;
  - `lanes run` processes at most $LANES_DOCS_EVENTS events (default 100): a larger -n is lowered, -n 0 and a
    missing -n (the source's end, or the job's default) become -n $LANES_DOCS_EVENTS (not with --endless);
  - `lanes scan` (unless --dry-run) runs --events $LANES_DOCS_SCAN_EVENTS (default 20) and --repeat 1.
A block whose fence has `<!-- not run: REASON -->` on the line above is skipped, and the reason printed (pytest
-rs). A command that fails, or names an option that no longer exists (lanes refuses it, exit status 2), fails its
block. Blocks run two at a time.
"""

import concurrent.futures
import os
import re
import shlex
import subprocess

import pytest

from conftest import BINARY, REPO

EVENTS = int(os.environ.get("LANES_DOCS_EVENTS", "100"))
SCAN_EVENTS = int(os.environ.get("LANES_DOCS_SCAN_EVENTS", "20"))
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "core" / "README.md"]
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.+?)\s*-->\s*$")
LANES = ("build/bin/lanes", "scripts/run")


class Block:
    def __init__(self, page, line, text, reason):
        self.page, self.line, self.text, self.reason = page, line, text, reason

    @property
    def name(self):
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks_of(page):
    """The ```sh blocks of a page: where each starts, its text, and why it is not run (or None)."""
    found, lines = [], page.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            start, body = i, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            above = NOT_RUN.match(lines[start - 1].strip()) if start > 0 else None
            found.append(Block(page, start + 1, "\n".join(body), above.group(1) if above else None))
        i += 1
    return found


BLOCKS = [block for page in PAGES if page.is_file() for block in blocks_of(page)]


def with_value(words, option, value):
    """`words` with `option VALUE` set to `value` (before a `--`, where the options of `lanes scan` end)."""
    words = list(words)
    end = words.index("--") if "--" in words else len(words)
    if option in words[:end]:
        words[words.index(option) + 1] = value
    else:
        words[end:end] = [option, value]
    return words


def rewrite_command(words):
    """One command's words, rewritten to keep it short (the module's docstring says how)."""
    if words[:1] == ["scripts/run"]:
        words = ["build/bin/lanes", "run", *words[1:]]
    if words[:2] == ["build/bin/lanes", "run"] and "--endless" not in words:
        events = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-n", "--events")), None)
        if events is None or events == "0" or int(events) > EVENTS:
            words = [w for i, w in enumerate(words) if not (w in ("-n", "--events") or
                                                            (i and words[i - 1] in ("-n", "--events")))]
            words += ["-n", str(EVENTS)]
    if words[:2] == ["build/bin/lanes", "scan"] and "--dry-run" not in words:
        words = with_value(with_value(words, "--events", str(SCAN_EVENTS)), "--repeat", "1")
    return words


def logical_lines(text):
    """The block's lines with each backslash continuation joined to its line."""
    lines, current = [], ""
    for line in text.splitlines():
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        lines.append(current + line)
        current = ""
    if current:
        lines.append(current)
    return lines


def script_of(block):
    """The block as the bash script that runs it: lanes commands rewritten, any other line as written."""
    lines = []
    for line in logical_lines(block.text):
        words = shlex.split(line, comments=True)
        lines.append(shlex.join(rewrite_command(words)) if words[:1] and words[0] in LANES else line)
    return "\n".join(lines)


def scratch_for(block, root):
    """A directory with the repository's folders and files linked, build/ being $LANES_BINARY's build."""
    directory = root / re.sub(r"[^A-Za-z0-9]+", "-", block.name)
    directory.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in (".git", "build"):
            (directory / entry.name).symlink_to(entry)
    (directory / "build").symlink_to(BINARY.resolve().parents[1])
    return directory


def run_block(block, root):
    script = script_of(block)
    directory = scratch_for(block, root)
    try:
        completed = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=directory, capture_output=True,
                                   text=True, timeout=240, stdin=subprocess.DEVNULL,
                                   env={**os.environ, "LANES_BINARY": str(BINARY)})
    except subprocess.TimeoutExpired:
        return script, None, "timed out after 240 s"
    return script, completed.returncode, completed.stdout[-3000:] + completed.stderr[-3000:]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Every runnable block's (script, exit status, output tail), run two at a time."""
    root = tmp_path_factory.mktemp("docs")
    runnable = [block for block in BLOCKS if block.reason is None]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {block.name: pool.submit(run_block, block, root) for block in runnable}
        return {name: future.result() for name, future in futures.items()}


def test_the_documentation_has_shell_blocks():
    assert len(BLOCKS) >= 10, [block.name for block in BLOCKS]
    assert any(block.reason is None for block in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_block_runs(block, results):
    if block.reason is not None:
        pytest.skip(f"{block.name} not run: {block.reason}")
    script, status, output = results[block.name]
    assert status == 0, f"{block.name} failed (exit status {status}):\n{script}\n---\n{output}"


@pytest.mark.parametrize("words, expected", [
    ("scripts/run -t 2", "build/bin/lanes run -t 2 -n {events}"),
    ("build/bin/lanes run -n 100000 --report r.json", "build/bin/lanes run --report r.json -n {events}"),
    ("build/bin/lanes run -n 1", "build/bin/lanes run -n 1"),
    ("build/bin/lanes run -n 0 --source root:file=x.root", "build/bin/lanes run --source root:file=x.root -n {events}"),
    ("build/bin/lanes run -n 0 --endless", "build/bin/lanes run -n 0 --endless"),
    ("build/bin/lanes scan f.toml -o d", "build/bin/lanes scan f.toml -o d --events {scan} --repeat 1"),
    ("build/bin/lanes scan -o d --repeat 3 -- --source empty",
     "build/bin/lanes scan -o d --repeat 1 --events {scan} -- --source empty"),
    ("build/bin/lanes scan f.toml --dry-run", "build/bin/lanes scan f.toml --dry-run"),
    ("build/bin/lanes report r.json -o r.html", "build/bin/lanes report r.json -o r.html"),
])
def test_long_jobs_are_made_short(words, expected):
    expected = expected.format(events=EVENTS, scan=SCAN_EVENTS)
    assert shlex.join(rewrite_command(shlex.split(words))) == expected


def test_blocks_are_found_with_their_reasons(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n```sh\nls \\\n  -l\n```\n<!-- not run: needs a GPU -->\n```sh\nnvidia-smi\n```\n"
                    "```text\nnot a command\n```\n")
    found = blocks_of(page)
    assert [(b.line, b.text, b.reason) for b in found] == [(2, "ls \\\n  -l", None), (7, "nvidia-smi", "needs a GPU")]
    assert logical_lines(found[0].text) == ["ls    -l"]
