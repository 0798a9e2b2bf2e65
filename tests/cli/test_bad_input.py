"""Bad input: a clear one-line error, a non-zero exit, no crash, no report."""

import pytest


def assert_one_line_error(result, *fragments, code=2):
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lanes: error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert result.report is None


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--source", "nosuch"], ["unknown source 'nosuch'", "synthetic"]),
        (["--module", "nosuch"], ["unknown module 'nosuch'"]),
        (["--output", "nosuch"], ["unknown output 'nosuch'", "dummy"]),
        (["--waiter", "producer"], ["'producer' is a module, not a waiter"]),
        (["--module", "fault:at=5,att=5"], ["module 'fault'", "unknown option 'att'"]),
        (["--module", "fault:at=five"], ["module 'fault'", "option 'at'", "'five'"]),
        (["--source", "synthetic:size.a"], ["malformed option 'size.a'"]),
        (["--source", "synthetic:profile=/no/such/profile.json"], ["/no/such/profile.json"]),
        (["--source", "empty", "--module", "analyzer:consumes=tracks"], ["consumes product 'tracks', which nothing produces"]),
        (["--source", "synthetic:size.a=10", "--module", "producer:produces.a=5"], ["product 'a' is produced twice"]),
        (["--source", "empty", "--module", "producer:label=a,consumes=y,produces.x=1",
          "--module", "producer:label=b,consumes=x,produces.y=1", "--output", "dummy"], ["dependency cycle"]),
        (["--report", "/no/such/dir/report.json"], ["/no/such/dir"]),
        (["--trace", "/no/such/dir/trace.json"], ["/no/such/dir"]),
        (["--summary", "long"], ["--summary", "long"]),
        (["--output", "root:file=out.root,writer=both"], ["option 'writer'", "auto|serial|parallel", "'both'"]),
        (["-t", "2", "--output", "root:file=out.root,writer=parallel,imt=true"], ["option 'imt'", "serial writer"]),
        (["--output", "root:file=out.root,writer=serial,concurrency=2"], ["option 'concurrency'", "parallel writer"]),
    ],
)
def test_bad_job(lanes, args, fragments):
    assert_one_line_error(lanes("run", "-n", "5", *args, report=False), *fragments)


def test_zero_threads_is_a_usage_error(lanes):
    result = lanes("run", "-t", "0", report=False)
    assert result.returncode == 2


def test_unknown_subcommand(lanes):
    assert lanes("frobnicate").returncode == 2


def test_missing_menu(lanes):
    result = lanes("run", "--menu", "/no/such/menu.toml", report=False)
    assert result.returncode == 2
    assert "/no/such/menu.toml" in result.stderr


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("[source\nplugin = 'empty'\n", ["syntax error at line 1"]),
        ("[sauce]\nplugin = 'empty'\n", ["unknown section 'sauce'"]),
        ("[[module]]\nplugin = 'producer'\n", ["module[0] needs a string 'label'"]),
        ("[[path]]\nname = 'p'\nmodules = ['ghost']\n", ["path 'p' names module 'ghost'"]),
        ("[job]\nthreads = -1\n", ["job.threads"]),
    ],
)
def test_bad_menu(lanes, tmp_path, text, fragments):
    menu = tmp_path / "bad.toml"
    menu.write_text(text)
    assert_one_line_error(lanes("run", "--menu", menu, report=False), *fragments)


def test_one_spec_per_option(lanes):
    result = lanes("run", "--source", "empty", "--module", "producer:produces.x=1", "stray", report=False)
    assert result.returncode == 2
    assert "stray" in result.stderr
