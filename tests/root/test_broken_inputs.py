"""Bad input files and unwritable outputs: one line `lanes: error: ...` naming the file, the right exit code, no
crash, and no output file left behind."""

import os
import struct

import pytest
import uproot

from rootio import MUONS, NANO, assert_clean_failure, output_spec, source_spec


def broken_file(tmp_path, kind):
    """A file that cannot be read as lanes input, by kind."""
    path = tmp_path / f"{kind}.root"
    if kind == "text":
        path.write_text("this is not a ROOT file\n" * 100)
    elif kind == "truncated":
        path.write_bytes(NANO.path.read_bytes()[:200000])
    return path  # "missing": never created


@pytest.mark.parametrize("plugin", ["root", "rntuple"])
@pytest.mark.parametrize("kind", ["missing", "text", "truncated"])
def test_unreadable_file(tmp_path, lanes, plugin, kind):
    path = broken_file(tmp_path, kind)
    out = tmp_path / "out.root"
    result = lanes("run", "--source", source_spec(plugin, path), "-n", "0", "-t", "2", "--output", f"root:file={out}")
    assert_clean_failure(result, str(path), codes=(2,), output=out)


@pytest.mark.parametrize("plugin, input, name, fragment", [
    ("root", NANO, "Nope", "no TTree 'Nope'"),
    ("rntuple", NANO, "Events", "'Events' is of class TTree, not ROOT::RNTuple"),  # a TTree-only file
    ("root", MUONS, "Events", "'Events' is of class ROOT::RNTuple, not TTree"),  # an RNTuple-only file
], ids=["no-such-tree", "rntuple-in-tree-file", "tree-in-rntuple-file"])
def test_file_without_the_requested_data(tmp_path, lanes, plugin, input, name, fragment):
    out = tmp_path / "out.root"
    result = lanes("run", "--source", source_spec(plugin, input.path, name), "-n", "0", "-t", "2",
                   "--output", f"root:file={out}")
    assert_clean_failure(result, str(input.path), fragment, codes=(2,), output=out)


def corrupt_first_basket(path, branch):
    """Overwrites the compressed payload of the first basket of `branch` in `path` with garbage, well after the
    key header and the 9-byte compression header."""
    with uproot.open(path) as file:
        b = file["Events"][branch]
        seek, size = int(b.member("fBasketSeek")[0]), int(b.member("fBasketBytes")[0])
    assert seek > 0, f"the first basket of {branch} is not a separate record"
    with open(path, "r+b") as f:
        f.seek(seek)
        key_length = struct.unpack(">iHiIH", f.read(16))[4]
        start = seek + key_length + 9 + 32
        f.seek(start)
        f.write(b"\xa5" * (seek + size - start))


def test_branch_that_cannot_be_read(tmp_path, lanes):
    # The baskets of the original file are stored inside its TTree record (fBasketSeek 0), so corrupting one
    # would break the whole tree: the copy to corrupt is written by lanes (zlib, like the original), which
    # writes each basket as a record of its own; with its serial writer, whose first basket holds every event (the
    # parallel writer's can hold the few events of one buffer, too few to compress).
    copy = tmp_path / "copy.root"
    result = lanes("run", "--source", NANO.spec(), "-n", "0", "--output",
                   f"root:file={copy},compression=zlib,writer=serial")
    assert result.returncode == 0, result.stderr
    corrupt_first_basket(copy, "Jet_pt")
    with pytest.raises(Exception):
        uproot.open(copy)["Events"]["Jet_pt"].array()  # uproot cannot read it either
    out = tmp_path / "out.root"
    result = lanes("run", "--source", source_spec("root", copy), "-n", "0", "-t", "2", "--output", f"root:file={out}")
    assert_clean_failure(result, "'Jet_pt'", str(copy), codes=(1,), output=out, decompressor_lines=True)
    assert result.report["failed"] is True
    assert "Jet_pt" in result.report["error"]


def unwritable_path(tmp_path):
    """A path whose file cannot be created. root ignores permission bits, but nothing can be created in /proc."""
    if os.geteuid() == 0:
        return "/proc/lanes-test.root"
    directory = tmp_path / "read-only"
    directory.mkdir(mode=0o555)
    return directory / "out.root"


@pytest.mark.parametrize("kind", ["root", "parallel-root", "rntuple", "rntuple-parallel"])
@pytest.mark.parametrize("where", ["missing-directory", "read-only"])
def test_output_that_cannot_be_written(tmp_path, lanes, kind, where):
    out = tmp_path / "no" / "such" / "dir" / "out.root" if where == "missing-directory" else unwritable_path(tmp_path)
    result = lanes("run", "--source", NANO.spec(), "-n", "0", "-t", "2", "--output", output_spec(kind, out))
    assert_clean_failure(result, str(out), codes=(2,), output=out)


@pytest.mark.parametrize("plugin, input, keep_bytes", [("root", NANO, 200000), ("rntuple", MUONS, 10000)])
def test_later_truncated_file_with_per_lane_handles(tmp_path, lanes, plugin, input, keep_bytes):
    # Later files are counted when a lane reaches them: the job fails then, naming the file, and writes nothing.
    truncated = tmp_path / "truncated.root"
    truncated.write_bytes(input.path.read_bytes()[:keep_bytes])
    out = tmp_path / "out.root"
    result = lanes("run", "--source", f"{plugin}:file={input.path},file={truncated},handles=lane", "-n", "0", "-t", "2",
                   "--output", f"root:file={out}")
    assert_clean_failure(result, str(truncated), codes=(1,), output=out)


@pytest.mark.parametrize("plugin, input", [("root", NANO), ("rntuple", MUONS)])
def test_chunk_must_be_positive(tmp_path, lanes, plugin, input):
    out = tmp_path / "out.root"
    result = lanes("run", "--source", f"{plugin}:file={input.path},handles=lane,chunk=0", "-n", "0",
                   "--output", f"root:file={out}")
    assert_clean_failure(result, "chunk", codes=(2,), output=out)
