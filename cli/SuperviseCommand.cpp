#include "SuperviseCommand.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

#include "TopologyCommand.h"
#include "lanes/core/Exception.h"
#include "lanes/monitor/AtomicFile.h"
#include "lanes/node/Allocator.h"
#include "lanes/node/Supervisor.h"

namespace lanes::cli {

namespace {

struct SuperviseArguments {
  std::string jobFile;
  std::string strategy = "numa-compact";
  std::string topology;
  double interval = 1;
  double grace = 5;
  double tolerance = 0.2;
  std::string confine = "overuse";
  std::string report;
  std::string log;
};

// "[2024-05-01 12:00:00.123] " in local time.
std::string timestamp() {
  auto const now = std::chrono::system_clock::now();
  auto const time = std::chrono::system_clock::to_time_t(now);
  auto const millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm local{};
  localtime_r(&time, &local);
  std::ostringstream text;
  text << "[" << std::put_time(&local, "%Y-%m-%d %H:%M:%S") << "." << std::setw(3) << std::setfill('0') << millis << "] ";
  return text.str();
}

// Each decision, timestamped, to stderr and (when given) the log file.
node::Supervisor::Log makeLog(std::string const& path) {
  auto file = std::make_shared<std::ofstream>();
  if (!path.empty()) {
    file->open(path);
    if (!*file) throw Exception("cannot write the log '" + path + "'");
  }
  return [file](std::string const& message) {
    auto const line = timestamp() + message + "\n";
    std::cerr << "lanes supervise: " << line << std::flush;
    if (file->is_open()) *file << line << std::flush;
  };
}

// With a topology that is not this machine's, nothing runs: each job's PUs
// as the supervisor would give them if the jobs started together.
void printPlan(node::Topology const& topology, node::PinStrategy const& strategy, std::vector<node::JobSpec> const& jobs) {
  node::checkEachJobFits(topology.pus(), strategy, jobs);
  node::NodeAllocator allocator(topology.pus());
  std::cout << "plan on " << topology.source() << " (" << strategy.name() << "; nothing runs):\n";
  for (auto const& job : jobs) {
    std::cout << "  job '" << job.name << "' (" << job.cores << " cores): ";
    try {
      std::cout << "PUs " << node::toString(allocator.allocate(strategy, job.cores)) << "\n";
    } catch (Exception const&) {
      std::cout << "waits for PUs that an earlier job releases\n";
    }
  }
}

// Fails before the jobs run rather than after, when the report has nowhere to go.
void requireDirectoryOf(std::string const& path) {
  auto const directory = std::filesystem::path(path).parent_path();
  if (!path.empty() && !directory.empty() && !std::filesystem::is_directory(directory)) {
    throw Exception("cannot write the report '" + path + "': directory '" + directory.string() + "' does not exist");
  }
}

node::SupervisorOptions optionsFrom(SuperviseArguments const& arguments) {
  node::SupervisorOptions options;
  options.strategy = node::PinStrategy::parse(arguments.strategy);
  options.intervalSeconds = arguments.interval;
  options.graceSeconds = arguments.grace;
  options.tolerance = arguments.tolerance;
  options.confinement = arguments.confine == "start" ? node::Confinement::AtStart : node::Confinement::OnOveruse;
  return options;
}

int superviseJobs(SuperviseArguments const& arguments) {
  auto const options = optionsFrom(arguments);
  auto const jobs = node::parseJobFile(arguments.jobFile);
  auto const topology = node::Topology::load(arguments.topology);
  if (!topology.isThisMachine()) {
    printPlan(topology, options.strategy, jobs);
    return 0;
  }
  requireDirectoryOf(arguments.report);
  node::Supervisor supervisor(topology, options, makeLog(arguments.log));
  auto const outcomes = supervisor.run(jobs);
  node::printTable(std::cout, outcomes);
  if (!arguments.report.empty()) {
    auto const json = node::toJson(options, outcomes);
    writeAtomically(arguments.report, [&](std::ostream& out) { out << json.dump(2) << "\n"; });
  }
  bool const allSucceeded =
      std::all_of(outcomes.begin(), outcomes.end(), [](node::JobOutcome const& outcome) { return outcome.exitCode == 0; });
  return allSucceeded ? 0 : 1;
}

}  // namespace

void addSuperviseCommand(CLI::App& app, int& exitCode) {
  auto arguments = std::make_shared<SuperviseArguments>();
  auto* supervise = app.add_subcommand("supervise", "Run a list of jobs on this node, each on its own PUs, "
                                                    "and confine those that use more than their cores");
  supervise->add_option("jobfile", arguments->jobFile, "Job file: one job per line, cores=N [name=LABEL] COMMAND ARG...")
      ->required();
  supervise->add_option("-s,--strategy", arguments->strategy,
                        "How each job's PUs are chosen: numa-compact (default), numa-spread, smt-shared, "
                        "random[:SEED], or none (jobs are measured, never bound)");
  supervise->add_option("--topology", arguments->topology,
                        std::string(topologyOptionHelp) + "; with one, only the plan is printed and nothing runs");
  supervise->add_option("--interval", arguments->interval, "Seconds between CPU samples (default 1)")
      ->check(CLI::Range(0.001, 3600.0));
  supervise->add_option("--grace", arguments->grace,
                        "Seconds a job may use more than its cores before it is confined (default 5)")
      ->check(CLI::Range(0.0, 86400.0));
  supervise->add_option("--tolerance", arguments->tolerance,
                        "How much more than its cores a job may use, as a fraction (default 0.2: 20%); "
                        "a negative one confines below the allocation (-0.9: above a tenth of it)")
      ->check(CLI::Range(-0.95, 100.0));
  supervise->add_option("--confine", arguments->confine,
                        "overuse (default): bind a job to its PUs when it over-uses them; start: bind it from the start")
      ->check(CLI::IsMember({"overuse", "start"}));
  supervise->add_option("--report", arguments->report, "Write the report as JSON to FILE");
  supervise->add_option("--log", arguments->log, "Also write the timestamped decisions to FILE");
  supervise->footer(
      "Job file: one job per line; blank lines and lines starting with # are skipped.\n"
      "  cores=2 name=reco lanes run -t 2 -n 5000\n"
      "  cores=1 python3 analysis.py 'an argument with spaces'\n"
      "Commands run without a shell: quotes group words, nothing else ($, ;, |, *) is interpreted.\n"
      "Jobs start in file order as soon as their PUs are free; a job that fails is reported, not retried.\n"
      "A job's CPU use is the user + system time of all its processes and threads (/proc).\n"
      "Examples:\n"
      "  lanes supervise jobs.txt --report supervise.json --log supervise.log\n"
      "  lanes supervise jobs.txt --strategy numa-spread --interval 0.5 --grace 10\n"
      "  lanes supervise jobs.txt --topology 'synthetic:pack:2 numa:1 l3:1 core:64 pu:2'");
  supervise->callback([arguments, &exitCode] { exitCode = superviseJobs(*arguments); });
}

}  // namespace lanes::cli
