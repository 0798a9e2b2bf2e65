#include "TopologyCommand.h"

#include <iostream>

#include "lanes/node/PinningStrategy.h"
#include "lanes/node/Topology.h"

namespace lanes::cli {

char const* const topologyOptionHelp =
    "Plan on another topology: synthetic:DESCRIPTION (hwloc's syntax, e.g. "
    "'synthetic:pack:2 numa:2 l3:1 core:32 pu:2') or an hwloc XML FILE (default: this machine)";

namespace {

struct TopologyArguments {
  std::string topology;
  bool json = false;
  std::string exportXml;
  std::string strategy;
  unsigned cores = 0;
};

void printCounts(node::Topology const& topology) {
  auto const counts = topology.counts();
  std::cout << "topology of " << topology.source() << ": " << counts["packages"] << " packages, " << counts["numa_nodes"]
            << " NUMA nodes, " << counts["l3"] << " L3, " << counts["l2"] << " L2, " << counts["l1"] << " L1, "
            << counts["cores"] << " cores, " << counts["pus"] << " PUs\n";
}

void showTopology(TopologyArguments const& arguments) {
  auto const topology = node::Topology::load(arguments.topology);
  if (!arguments.exportXml.empty()) topology.exportXml(arguments.exportXml);
  auto json = topology.toJson();
  if (!arguments.strategy.empty()) {
    auto const strategy = node::PinStrategy::parse(arguments.strategy);
    auto const pus = node::choosePus(topology.pus(), strategy, arguments.cores ? arguments.cores : 1);
    json["plan"] = {{"strategy", strategy.name()}, {"pus", pus}};
    if (!arguments.json) std::cout << strategy.name() << " for " << pus.size() << " threads: PUs " << node::toString(pus) << "\n";
  }
  if (arguments.json) {
    std::cout << json.dump(2) << "\n";
    return;
  }
  printCounts(topology);
  topology.printTree(std::cout);
}

}  // namespace

void addTopologyCommand(CLI::App& app) {
  auto arguments = std::make_shared<TopologyArguments>();
  auto* topology = app.add_subcommand("topology", "Show the CPU topology (packages, NUMA nodes, caches, cores, PUs)");
  topology->add_option("--topology", arguments->topology, topologyOptionHelp);
  topology->add_flag("--json", arguments->json, "Print JSON: counts, the tree, and every PU with its core, caches, NUMA node");
  topology->add_option("--export-xml", arguments->exportXml, "Also write the topology as hwloc XML to FILE");
  auto* strategy = topology->add_option("--strategy", arguments->strategy,
                                        "Also show which PUs this pinning strategy picks (see `lanes pin --help`)");
  topology->add_option("--cores", arguments->cores, "Threads to plan the --strategy for (default 1)")
      ->check(CLI::PositiveNumber)
      ->needs(strategy);
  topology->footer(
      "Examples:\n"
      "  lanes topology\n"
      "  lanes topology --json --export-xml node.xml\n"
      "  lanes topology --topology 'synthetic:pack:2 numa:1 l3:1 l2:64 l1:1 core:1 pu:2' --strategy numa-spread --cores 8\n"
      "  lanes topology --topology node.xml");
  topology->callback([arguments] { showTopology(*arguments); });
}

}  // namespace lanes::cli
