"""TTrees that lanes wrote, damaged afterwards as a disk or a transfer damages files (issue 24): bytes inverted inside
a basket, in a basket's header, in the tree's table of baskets. ROOT's zstd frames carry no checksum and a basket
stored uncompressed has none either, and ROOT trusts what it reads: the issue's crash was a damaged entry offset that
sent ROOT reading outside the basket, and the process died of SIGSEGV without a word. Cheap checks now catch such
damage before ROOT follows it: one line naming the file, the branch, the entry and the basket, exit 1 (2 when the
first file's table of baskets is damaged: found before any event).

Where no check sees the damage and ROOT still dies of a signal (here: garbage in the file's streamer information,
which no checksum covers in an uncompressed file), the process first prints one line naming what it read and saying
that the file is probably damaged, and ends with the signal's own status; a worker of a multi-process job leaves
that line to its parent, which prints it naming the worker."""

import struct

import pytest
import uproot

from faults import (assert_nothing_under, assert_one_line_error, assert_said_before_the_signal, damaged_copy, invert,
                    nano_events_written, run_limited, streamer_information_that_crashes_root, without_stack_traces)

EVENTS = 50


def written(tmp_path_factory, name, *options):
    return nano_events_written(tmp_path_factory.mktemp(name) / f"{name}.root", EVENTS, *options)


@pytest.fixture(scope="module")
def zstd(tmp_path_factory):
    """zstd, whose frames ROOT writes without a checksum (lanes' default, lz4, has one: ROOT finds such damage)."""
    return written(tmp_path_factory, "zstd", "compression=zstd")


@pytest.fixture(scope="module")
def lz4(tmp_path_factory):
    """lanes' default: lz4, whose blocks ROOT checks against their checksum."""
    return written(tmp_path_factory, "lz4")


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    """Uncompressed (level=0): every record's bytes are as ROOT reads them, so the damage lands where it is put."""
    return written(tmp_path_factory, "raw", "level=0")


def first_basket(path, branch):
    with uproot.open(path) as file:
        b = file["Events"][branch]
        return int(b.member("fBasketSeek")[0]), int(b.member("fBasketBytes")[0])


def header_fields(data, seek):
    """Where a basket record's header keeps its fields: {name: (offset in the file, format)}. The basket's own
    fields close the header: version, buffer size, room for entry offsets (negative, then a byte of I/O feature
    bits, where there are some), entries, end of data, flag."""
    end = seek + struct.unpack(">h", data[seek + 14:seek + 16])[0]
    features = struct.unpack(">i", data[end - 14:end - 10])[0] < 0
    room = end - (14 if features else 13)
    return {"length": (seek, ">i"), "version": (room - 6, ">h"), "entries": (end - 9, ">i"),
            "data-end": (end - 5, ">i")}


def read_back(tmp_path, bad, *extra):
    out = tmp_path / "out.root"
    result = run_limited("run", "-t", 2, "-n", 0, *extra, "--source", f"root:file={bad}", "--output",
                         f"root:file={out}", cwd=tmp_path)
    return result, out


def test_the_issues_crash_is_a_one_line_error_naming_the_branch(tmp_path, zstd):
    """The issue's damage: 8 bytes inverted inside the zstd-compressed basket of LHEPdfWeight (its 5,438th
    payload byte; 68,379 in the issue's file). zstd decompresses it into garbage entry offsets, which ROOT
    followed out of the basket (SIGSEGV in TBufferFile::ReadVersion, exit 139, nothing printed)."""
    seek, _ = first_basket(zstd, "LHEPdfWeight")

    def damage(data):
        keylen = struct.unpack(">h", data[seek + 14:seek + 16])[0]
        invert(data, seek + keylen + 5438, 8)

    bad = damaged_copy(zstd, tmp_path / "bad.root", damage)
    result, out = read_back(tmp_path, bad)
    assert_one_line_error(result, f"'{bad}'", "branch 'LHEPdfWeight'", "of entry", "the file is damaged", code=1)
    assert_nothing_under(out)


def test_a_damaged_lz4_basket_fails_naming_the_branch(tmp_path, lz4):
    """8 bytes inverted inside the LZ4-compressed basket of LHEPdfWeight: ROOT's checksum finds it when the basket is
    read, and the job fails with exit 1, in one line naming the file, the branch and the entry, and quoting ROOT's
    own complaint, which it writes to stderr (R__unzipLZ4) and lanes keeps out of the way."""
    seek, size = first_basket(lz4, "LHEPdfWeight")

    def damage(data):
        keylen = struct.unpack(">h", data[seek + 14:seek + 16])[0]
        invert(data, seek + keylen + (size - keylen) // 2, 8)

    bad = damaged_copy(lz4, tmp_path / "bad.root", damage)
    result, out = read_back(tmp_path, bad)
    assert_one_line_error(result, f"'{bad}'", "branch 'LHEPdfWeight' of entry ", "GetBasket",
                          "written to stderr behind lanes' back: 'R__unzipLZ4: Buffer corruption error!", code=1)
    assert_nothing_under(out)


@pytest.mark.parametrize("field, value, fragment", [
    ("length", 1 << 20, "has a record header that does not fit"),
    ("version", 0x4001, "has a record header that does not fit"),  # ROOT takes it for a byte count: every field shifts
    ("entries", 7, "holds 7 entries where the tree says 50"),
    ("data-end", 1 << 30, "says its data end at byte 1073741824"),
])
def test_a_damaged_basket_header_is_a_one_line_error(tmp_path, raw, field, value, fragment):
    seek, _ = first_basket(raw, "Jet_pt")

    def damage(data):
        at, form = header_fields(data, seek)[field]
        data[at:at + struct.calcsize(form)] = struct.pack(form, value)

    bad = damaged_copy(raw, tmp_path / "bad.root", damage)
    result, out = read_back(tmp_path, bad)
    assert_one_line_error(result, f"'{bad}'", "branch 'Jet_pt' of entry ", f"basket 0 of branch 'Jet_pt' {fragment}",
                          code=1)
    assert_nothing_under(out)


def test_a_damaged_entry_offset_is_a_one_line_error(tmp_path, raw):
    """The offsets of a basket's entries follow its data; ROOT reads an entry wherever its offset says."""
    seek, _ = first_basket(raw, "Jet_pt")

    def damage(data):
        at, form = header_fields(data, seek)["data-end"]
        offsets = seek + struct.unpack(form, data[at:at + 4])[0] + 4  # past the array's length
        data[offsets + 4 * 3:offsets + 4 * 4] = struct.pack(">i", 0x7FFF0000)

    bad = damaged_copy(raw, tmp_path / "bad.root", damage)
    result, out = read_back(tmp_path, bad)
    assert_one_line_error(result, f"'{bad}'", "branch 'Jet_pt' of entry ",
                          f"says entry 3 starts at byte {0x7FFF0000}, outside its data", code=1)
    assert_nothing_under(out)


def test_a_basket_placed_past_the_end_of_the_file_is_refused_before_the_job(tmp_path, raw):
    """The tree's table of baskets (in its own record) places Jet_pt's first basket past the end of the file."""
    seek, _ = first_basket(raw, "Jet_pt")
    size = raw.stat().st_size

    def damage(data):
        with uproot.open(raw) as file:
            key = file.key("Events")
            record = slice(key.fSeekKey + key.fKeylen, key.fSeekKey + key.fNbytes)
        table = data[record]
        assert table.count(struct.pack(">q", seek)) == 1
        at = record.start + table.find(struct.pack(">q", seek))
        data[at:at + 8] = struct.pack(">q", size + 1000)

    bad = damaged_copy(raw, tmp_path / "bad.root", damage)
    result, out = read_back(tmp_path, bad)
    assert_one_line_error(result, f"'{bad}'", "TTree 'Events'", "basket 0 of branch 'Jet_pt' lies at bytes",
                          f"outside the file's {size}", code=2)
    assert_nothing_under(out)


@pytest.fixture(scope="module")
def crashing(raw, tmp_path_factory):
    return streamer_information_that_crashes_root(raw, tmp_path_factory.mktemp("crashing"))


def test_a_signal_inside_root_says_what_was_read_first(tmp_path, crashing):
    out = tmp_path / "out.root"
    result = run_limited("run", "-t", 2, "-n", 0, "--source", f"root:file={crashing}", "--output", f"root:file={out}",
                         cwd=tmp_path)
    assert_said_before_the_signal(result, crashing)
    assert not out.exists()


def test_a_worker_killed_by_a_signal_is_named_with_what_it_read(tmp_path, raw, crashing):
    """The damaged file comes second: the parent opens only the first before the fork; the workers open the second
    as they reach it, and die. The parent prints the line the worker left on the board, naming the worker."""
    out = tmp_path / "out.root"
    result = run_limited("run", "--processes", 2, "-t", 1, "-n", 0, "--chunk", 5, "--source",
                         f"root:file={raw},file={crashing}", "--output", f"root:file={out}", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    errors = [line for line in without_stack_traces(result.stderr) if line.startswith("lanes: ")]
    assert len(errors) == 1 and errors[0].startswith("lanes: error: worker-"), result.stderr
    for fragment in ("killed by signal", "on thread", f"'{crashing}': the file is probably damaged"):
        assert fragment in errors[0], (fragment, errors[0])
    assert "while opening" in result.stderr or "while reading" in result.stderr
    assert "--retry-lost" not in result.stderr  # another worker would die of it too
    assert_nothing_under(out)
