#include "PinCommand.h"

#include <sys/wait.h>

#include <cerrno>
#include <iostream>

#include "TopologyCommand.h"
#include "lanes/core/Exception.h"
#include "lanes/node/Pinning.h"
#include "lanes/node/Allocator.h"
#include "lanes/node/Topology.h"

namespace lanes::cli {

namespace {

struct PinArguments {
  std::string strategy = "numa-compact";
  unsigned cores = 1;
  std::string topology;
  std::vector<std::string> command;
};

int waitFor(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Exception("lost the command's process " + std::to_string(pid));
  }
  return node::exitCodeOf(status);
}

int pinCommand(PinArguments const& arguments) {
  auto const strategy = node::PinStrategy::parse(arguments.strategy);
  auto const topology = node::Topology::load(arguments.topology);
  auto const pus = node::choosePus(topology.pus(), strategy, arguments.cores);
  if (!topology.isThisMachine()) {
    std::cout << "plan on " << topology.source() << ": " << strategy.name() << " gives PUs " << node::toString(pus)
              << " (not run: the topology is not this machine's)\n";
    return 0;
  }
  auto const pid = node::spawnPinned(arguments.command, strategy.binds() ? pus : node::CpuSet{});
  std::cerr << "lanes pin: " << strategy.name() << ": PUs " << (strategy.binds() ? node::toString(pus) : "any") << "\n";
  return waitFor(pid);
}

}  // namespace

std::unique_ptr<node::ThreadPinner> pinJobThreads(std::string const& strategyName, EventProcessor const& processor,
                                                  unsigned seat, unsigned seats) {
  if (strategyName.empty() || seats == 0) return nullptr;
  auto const strategy = node::PinStrategy::parse(strategyName);
  if (!strategy.binds()) return nullptr;
  auto const machine = node::Topology::load("").pus();
  auto const threads = processor.info().threads;
  auto const pus = seats == 1 ? node::choosePus(machine, strategy, threads)
                              : node::allocateWorkers(machine, strategy, seats, threads).at(seat);
  auto pinner = std::make_unique<node::ThreadPinner>(pus);
  std::cout << "threads pinned by " << strategy.name() << " to PUs " << node::toString(pus) << "\n";
  return pinner;
}

nlohmann::json pinningReport(std::string const& strategy, node::ThreadPinner const& pinner) {
  return {{"strategy", strategy},
          {"pus", pinner.pus()},
          {"threads_pinned", pinner.threadsPinned()},
          {"error", pinner.firstError()}};
}

void addPinCommand(CLI::App& app, int& exitCode) {
  auto arguments = std::make_shared<PinArguments>();
  auto* pin = app.add_subcommand("pin", "Run a command confined to the PUs a pinning strategy picks");
  pin->add_option("-s,--strategy", arguments->strategy,
                  "numa-compact (default), numa-spread, smt-shared, random[:SEED] or none");
  pin->add_option("-c,--cores", arguments->cores, "PUs to give the command (default 1)")->check(CLI::PositiveNumber);
  pin->add_option("--topology", arguments->topology,
                  std::string(topologyOptionHelp) + "; with one, only the plan is printed and nothing runs");
  pin->add_option("command", arguments->command, "The command and its arguments, after --")->required();
  pin->footer(
      "Strategies:\n"
      "  numa-compact   one NUMA node, one PU per L2 cache (no two threads share L1 or L2)\n"
      "  numa-spread    round-robin over NUMA nodes, one PU per L2 cache\n"
      "  smt-shared     hardware-thread siblings (pairs share a core's L1 and L2)\n"
      "  random[:SEED]  any free PUs, shuffled reproducibly\n"
      "  none           the command runs unconfined\n"
      "The command runs without a shell; lanes pin exits with its status (128 + N if killed by signal N).\n"
      "Examples:\n"
      "  lanes pin --strategy numa-compact --cores 2 -- lanes run -t 2\n"
      "  lanes pin --strategy numa-spread --cores 8 --topology 'synthetic:pack:2 numa:2 core:16 pu:2' -- true");
  pin->callback([arguments, &exitCode] { exitCode = pinCommand(*arguments); });
}

}  // namespace lanes::cli
