"""The damaged-file sweep, short (lanes.tools.damage_sweep): for each format lanes reads (root, rntuple, root-events,
pds, hdf5 in both layouts), in two settings, and for the real files of data/files, 16 seeded damaged copies read
back by lanes. A copy must fail in one line naming it or read the values the undamaged file holds; values changed
under exit 0, a signal with nothing said, a hang, an error that is not one line naming the copy, each fails the
case, unless tests/faults/damage_limits.json documents it as a limit of the format (a TTree's baskets that no
checksum covers), at the rate the long sweep measured (docs/faults.md); lanes' own formats have no such limit.

Also: the sweep's classification of a job's ending, and its damage being the same for a seed."""

import random
import sys

import pytest

from conftest import BINARY, REPO


from lanes.tools import damage_sweep  # noqa: E402

OWN = ("root-events", "pds", "hdf5")


@pytest.mark.parametrize("subject", damage_sweep.SUBJECTS, ids=lambda subject: subject.name)
def test_damaged_copies(subject):
    [row] = damage_sweep.sweep(BINARY, [subject], damage_sweep.SHORT_COPIES, "lanes", jobs=2, timeout=60)
    assert row.copies == damage_sweep.SHORT_COPIES
    assert damage_sweep.failures([row], damage_sweep.load_limits()) == []


def test_only_root_formats_have_documented_limits():
    limits = damage_sweep.load_limits()
    subjects = {subject.name: subject for subject in damage_sweep.SUBJECTS + damage_sweep.LONG_ONLY}
    assert set(limits) <= set(subjects)
    for name, outcomes in limits.items():
        assert subjects[name].source not in OWN
        assert set(outcomes) <= set(damage_sweep.FAILING)
        assert all(0 < limit["rate"] < 1 and limit["why"] for limit in outcomes.values())


class Ended:
    def __init__(self, returncode, stderr=""):
        self.returncode, self.stderr = returncode, stderr


@pytest.mark.parametrize("ended,outcome", [
    (Ended(None), "hang"),
    (Ended(-11), "signal-silent"),
    (Ended(-11, "lanes: crashed reading 'copy.root' (probably damaged)\n"), "signal-named"),
    (Ended(1, "lanes: error: cannot read 'copy.root': checksum mismatch\n"), "error"),
    (Ended(2, "R__unzip: error -3 in inflate (zlib)\nlanes: error: 'copy.root' cannot be read\n"), "error+root"),
    (Ended(2, "Warning in <TFile>: x\nlanes: error: 'copy.root' cannot be read\n"), "other-error"),
    (Ended(1, "lanes: error: cannot read branch 'x'\n"), "other-error"),
    (Ended(1, "lanes: error: 'copy.root' is damaged\nmore\n"), "other-error"),
    (Ended(134, ""), "other-error"),
], ids=lambda value: value if isinstance(value, str) else None)
def test_classification(tmp_path, ended, outcome):
    copy = tmp_path / "copy.root"
    assert damage_sweep.classify(ended, copy, "reference", tmp_path / "dump.pds") == outcome


def test_classification_of_exit_0_compares_the_dump(tmp_path):
    dump = tmp_path / "dump.pds"
    dump.write_bytes(b"values")
    reference = damage_sweep.digest(dump)
    assert damage_sweep.classify(Ended(0), tmp_path / "copy", reference, dump) == "same"
    dump.write_bytes(b"valuez")
    assert damage_sweep.classify(Ended(0), tmp_path / "copy", reference, dump) == "changed"
    dump.unlink()
    assert damage_sweep.classify(Ended(0), tmp_path / "copy", reference, dump) == "changed"


@pytest.mark.parametrize("kind", damage_sweep.DAMAGES)
def test_damage_is_seeded_and_changes_the_bytes(kind):
    data = bytes(range(256)) * 64
    first = damage_sweep.damage(data, kind, random.Random("seed/3"))
    assert first == damage_sweep.damage(data, kind, random.Random("seed/3"))
    damaged, at = first
    assert damaged != data
    if kind == "truncate":
        assert damaged == data[:at]
    else:
        assert len(damaged) == len(data) and damaged[:at] == data[:at]
        assert (at < 4096 - 8) if kind == "flip-head" else True
