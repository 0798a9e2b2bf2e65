"""`lanes topology`: this machine, synthetic and XML topologies, JSON, plans, bad input."""

import json
import os

import pytest
from nodecli import assert_one_line_error

DUAL_SOCKET = "synthetic:pack:2 numa:1 l3:1 l2:64 l1:1 core:1 pu:2"


def test_this_machine_as_a_tree(lanes):
    result = lanes("topology")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("topology of this machine: ")
    assert "PU P#%d" % min(os.sched_getaffinity(0)) in result.stdout


def test_this_machine_as_json_lists_every_pu(lanes):
    result = lanes("topology", "--json")
    assert result.returncode == 0, result.stderr
    topology = json.loads(result.stdout)
    assert topology["this_machine"] is True
    assert topology["counts"]["pus"] == os.cpu_count()
    assert sorted(pu["os"] for pu in topology["pus"]) == sorted(os.sched_getaffinity(0))


def test_synthetic_dual_socket_and_a_plan_on_it(lanes):
    result = lanes("topology", "--topology", DUAL_SOCKET, "--json", "--strategy", "numa-spread", "--cores", "8")
    assert result.returncode == 0, result.stderr
    topology = json.loads(result.stdout)
    assert topology["this_machine"] is False
    assert topology["counts"] == {"packages": 2, "numa_nodes": 2, "l3": 2, "l2": 128, "l1": 128, "cores": 128, "pus": 256}
    numa_of = {pu["os"]: pu["numa"] for pu in topology["pus"]}
    plan = topology["plan"]
    assert plan["strategy"] == "numa-spread"
    assert len(plan["pus"]) == 8
    assert {numa_of[pu] for pu in plan["pus"]} == {0, 1}


def test_exported_xml_loads_back(lanes, tmp_path):
    xml = tmp_path / "node.xml"
    exported = lanes("topology", "--topology", DUAL_SOCKET, "--json", "--export-xml", xml)
    assert exported.returncode == 0, exported.stderr
    loaded = lanes("topology", "--topology", xml, "--json")
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout)["pus"] == json.loads(exported.stdout)["pus"]
    assert json.loads(loaded.stdout)["source"] == str(xml)


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--topology", "synthetic:pack:two core:2"], ["malformed synthetic topology 'pack:two core:2'"]),
        (["--topology", "/no/such/node.xml"], ["topology file '/no/such/node.xml' does not exist"]),
        (["--strategy", "compact"], ["unknown pinning strategy 'compact'", "numa-compact"]),
        (["--topology", DUAL_SOCKET, "--strategy", "numa-compact", "--cores", "129"],
         ["numa-compact: 129 PUs on separate cores", "128 free"]),
        (["--topology", "synthetic:core:4 pu:1", "--strategy", "smt-shared", "--cores", "2"], ["one hardware thread per core"]),
    ],
)
def test_bad_input(lanes, args, fragments):
    assert_one_line_error(lanes("topology", *args), *fragments)


def test_a_file_that_is_not_xml(lanes, tmp_path):
    bogus = tmp_path / "bogus.xml"
    bogus.write_text("not a topology")
    assert_one_line_error(lanes("topology", "--topology", bogus), "not a valid hwloc XML file")
