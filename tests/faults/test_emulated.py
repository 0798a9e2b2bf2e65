"""RNTuple fields of a class without a dictionary, as a file from another experiment has them: the rntuple source
reads them emulated (ROOT's RCreateModelOptions::SetEmulateUnknownTypes), in one process and in several; an output
refuses them in one line naming the field (no ROOT writer can store an emulated record); with dictionaries=DIR the
source builds real ones, and both outputs copy the field value for value."""

import subprocess
import sys

import pytest
import uproot

from faults import assert_nothing_under, assert_one_line_error, run_limited

ENTRIES = 50

# The class exists only in the Python process that writes the file (a dictionary generated there, in its cwd).
WRITE_HITS = """
import sys, ROOT
ROOT.gInterpreter.Declare("struct Hit { float x; float y; int id; };")
ROOT.gInterpreter.GenerateDictionary("Hit", "")
ROOT.gInterpreter.Declare('''
void writeHits(const char* path, int entries) {
  auto model = ROOT::RNTupleModel::Create();
  auto hit = model->MakeField<Hit>("hit");
  auto n = model->MakeField<int>("n");
  auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "Events", path);
  for (int i = 0; i < entries; ++i) {
    *hit = Hit{i * 0.5f, -1.0f * i, i};
    *n = i;
    writer->Fill();
  }
}
''')
ROOT.writeHits(sys.argv[1], int(sys.argv[2]))
"""


@pytest.fixture(scope="module")
def hits(tmp_path_factory):
    directory = tmp_path_factory.mktemp("writer")
    path = directory / "hits.root"
    subprocess.run([sys.executable, "-c", WRITE_HITS, str(path), str(ENTRIES)], check=True, capture_output=True,
                   cwd=directory, timeout=300)
    return path


def hit_values(path, name="hit"):
    with uproot.open(path) as file:
        return file["Events"].arrays()[name].tolist()


@pytest.mark.parametrize("mode", [[], ["--processes", "2"]], ids=["single", "processes"])
def test_a_field_without_a_dictionary_is_read_emulated(tmp_path, hits, mode):
    # A waiter consumes every product: each event's `hit` is read, through the emulated field.
    result = run_limited("run", "-n", "0", "-t", "2", *mode, "--source", f"rntuple:file={hits}",
                         "--waiter", "busy:scale=1e-12", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == ENTRIES
    assert "lanes: error" not in result.stderr


@pytest.mark.parametrize("output", ["root", "rntuple", "rntuple-parallel", "parallel-root"])
def test_an_output_refuses_an_emulated_field_naming_it(tmp_path, hits, output):
    out = tmp_path / "out.root"
    result = run_limited("run", "-n", "0", "--source", f"rntuple:file={hits}", "--output", f"{output}:file={out}",
                         cwd=tmp_path)
    assert_one_line_error(result, "product 'hit'", "'Hit'", "read emulated", "dictionaries=DIR", "keep=", code=2)
    assert_nothing_under(out)


def test_a_worker_output_refuses_it_with_the_same_exit_status(tmp_path, hits):
    """The outputs begin in each worker: their refusal is still bad input, exit 2, in one line."""
    out = tmp_path / "out.root"
    result = run_limited("run", "-n", "0", "--processes", "2", "--source", f"rntuple:file={hits}", "--output",
                         f"rntuple:file={out}", cwd=tmp_path)
    assert_one_line_error(result, "product 'hit'", "'Hit'", "read emulated", "dictionaries=DIR", "keep=", code=2)
    assert_nothing_under(out)


def test_keep_leaves_the_emulated_field_out(tmp_path, hits):
    out = tmp_path / "out.root"
    result = run_limited("run", "-n", "0", "--source", f"rntuple:file={hits}", "--output",
                         f"rntuple:file={out},keep=n", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # Events finish in any order on several threads: compare the set of entries.
    assert sorted(hit_values(out, "n")) == list(range(ENTRIES))


@pytest.mark.parametrize("mode", [[], ["--processes", "2"]], ids=["single", "processes"])
def test_with_dictionaries_both_outputs_copy_the_field(tmp_path, hits, mode):
    tree, ntuple = tmp_path / "tree.root", tmp_path / "ntuple.root"
    # A relative DIR: the build runs in a directory of its own.
    result = run_limited("run", "-n", "0", *mode, "--source", f"rntuple:file={hits},dictionaries=dictionaries",
                         "--output", f"root:file={tree}", "--output", f"rntuple:file={ntuple}", cwd=tmp_path,
                         timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.report["events"] == ENTRIES
    expected = hit_values(hits)
    by_id = lambda hit: hit["id"]  # noqa: E731  (worker parts are merged in any order)
    assert sorted(hit_values(ntuple), key=by_id) == expected
    with uproot.open(tree) as file:  # the TTree splits the class into a branch per member
        columns = file["Events"].arrays(["x", "y", "id"]).tolist()
    assert sorted(columns, key=by_id) == expected
