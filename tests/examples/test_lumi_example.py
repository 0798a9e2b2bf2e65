"""The tutorial's runs-and-lumis example (examples/modules/LumiExample.cpp, core/README.md step 7) as a user runs
it: loaded from its plugin library by the `lanes` command, on the real NanoAOD file (200 events in 6 lumis of run
1), in two processes that each see part of most lumis. The parent merges the parts into one `root` output, whose
LuminosityBlocks and Runs uproot reads back against numpy over the input.
"""

from lumis import NANO, assert_example_records, example


def test_two_processes_merge_each_lumis_histogram_and_the_runs_count(lanes, tmp_path):
    # Chunks of 40 events: the lumis (34, 45, 22, 43, 45 and 11 events) are shared out between the workers.
    result = lanes("run", "--processes", 2, "-t", 1, "--chunk", 40, "--source", f"root:file={NANO},branches=Muon_pt",
                   *example(), "--output", "root:file=out.root")
    assert result.returncode == 0, result.stderr
    assert_example_records(tmp_path / "out.root")
    [output] = result.report["outputs"]
    assert (output["events_written"], output["lumis_written"], output["runs_written"]) == (200, 6, 1)
    assert all(worker["events"] < 200 for worker in result.report["workers"])
