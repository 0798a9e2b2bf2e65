#include "RunCommand.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <iostream>
#include <thread>

#include "AccelOptions.h"
#include "CleanCommand.h"
#include "Menu.h"
#include "PinCommand.h"
#include "SignalStop.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/Exception.h"
#include "lanes/monitor/ModuleStatistics.h"
#include "lanes/monitor/ProgressTicker.h"
#include "lanes/monitor/ResourceUsage.h"
#include "lanes/monitor/RunReport.h"
#include "lanes/monitor/TraceRecorder.h"
#include "lanes/monitor/Watchdog.h"
#include "lanes/monitor/AtomicFile.h"
#include "lanes/node/MultiProcessJob.h"

namespace lanes::cli {

namespace {

// The built-in default: CMS NanoAOD-sized products (profile derived once from
// the real file in shared/data by tools/derive_profile.py), a busy waiter per
// product, a dummy output.
void addDefaultJob(JobConfig& config) {
  config.source = PluginSpec::parse("synthetic:profile=" LANES_SOURCE_DIR "/data/profiles/nanoaod.json");
  config.waiters.push_back(PluginSpec::parse("busy:scale=1e-6"));
  config.outputs.push_back({"out", PluginSpec::parse("dummy"), {}});
}

// `--module producer:label=tracks,...`: the label comes out of the options
// (default: the plugin name, numbered if repeated).
std::string takeLabel(PluginSpec& spec, std::vector<std::string>& used) {
  auto label = spec.options.take("label").value_or(spec.name);
  if (std::find(used.begin(), used.end(), label) != used.end() && !spec.options.has("label")) {
    for (int n = 2;; ++n) {
      auto candidate = label + "#" + std::to_string(n);
      if (std::find(used.begin(), used.end(), candidate) == used.end()) {
        label = candidate;
        break;
      }
    }
  }
  used.push_back(label);
  return label;
}

}  // namespace

JobConfig makeJob(RunArguments const& arguments) {
  JobConfig config;
  MenuJobSettings menu;
  if (!arguments.menu.empty()) menu = loadMenu(arguments.menu, config);
  bool const describesJob = !arguments.menu.empty() || !arguments.source.empty() || !arguments.waiters.empty() ||
                            !arguments.modules.empty() || !arguments.outputs.empty();
  if (!describesJob) addDefaultJob(config);
  if (!arguments.source.empty()) config.source = PluginSpec::parse(arguments.source);
  for (auto const& waiter : arguments.waiters) config.waiters.push_back(PluginSpec::parse(waiter));
  std::vector<std::string> labels;
  for (auto const& text : arguments.modules) {
    auto spec = PluginSpec::parse(text);
    auto label = takeLabel(spec, labels);
    config.modules.push_back({label, std::move(spec)});
  }
  for (auto const& text : arguments.outputs) {
    auto spec = PluginSpec::parse(text);
    auto label = takeLabel(spec, labels);
    auto select = spec.options.takeAll("select");
    config.outputs.push_back({label, std::move(spec), select});
  }
  unsigned const cores = std::max(1u, std::thread::hardware_concurrency());
  config.threads = arguments.threads ? arguments.threads : (menu.threads ? menu.threads : cores);
  config.lanes = arguments.lanes ? arguments.lanes : menu.lanes;
  config.maxEvents = arguments.eventsGiven || !menu.hasEvents ? arguments.events : menu.events;
  if (arguments.onError == "skip") {
    config.onError = ErrorPolicy::Skip;
  } else if (arguments.onError != "stop") {
    throw Exception("--on-error must be 'stop' or 'skip', not '" + arguments.onError + "'");
  }
  return config;
}

namespace {

constexpr double kMultiProcessWatchdogSeconds = 600;

// Fails before the job runs rather than after, when a result has nowhere to go.
void requireWritableDirectory(std::string const& path, char const* what) {
  if (path.empty()) return;
  auto directory = std::filesystem::path(path).parent_path();
  if (directory.empty()) directory = ".";
  if (!std::filesystem::is_directory(directory)) {
    throw Exception(std::string("cannot write the ") + what + " '" + path + "': directory '" + directory.string() +
                    "' does not exist");
  }
  if (::access(directory.c_str(), W_OK) != 0) {
    throw Exception(std::string("cannot write the ") + what + " '" + path + "': directory '" + directory.string() +
                    "' is not writable");
  }
}

double watchdogSeconds(RunArguments const& arguments) {
  if (arguments.watchdog >= 0) return arguments.watchdog;
  return arguments.processes ? kMultiProcessWatchdogSeconds : 0;
}

// A stopped job failed, naming what hung.
void noteWatchdog(Watchdog const& watchdog, RunReport& report) {
  report.sections["watchdog"] = watchdog.toJson();
  if (watchdog.action() != WatchdogAction::Stop || watchdog.firstHang().empty() || report.failed) return;
  report.failed = true;
  report.error = "watchdog: " + watchdog.firstHang() + "; the job was stopped";
}

// One part of a job with the monitor attached: the whole job in a single
// process, or a worker's share of a multi-process job. `signals` is the
// process's SignalStop, or nullptr for a forked worker, which makes its own
// (it has a single thread, as a SignalStop needs).
// The job's error, with `failure` added (a job that succeeded has none).
std::string withFailure(std::string const& error, std::string const& failure) {
  return error.empty() ? failure : error + "; " + failure;
}

int exitStatus(bool failed, int signal) { return failed ? 1 : signal ? 128 + signal : 0; }

// Writes the report through `write`; prints the job's error, and the report's
// if it cannot be written, in one line; returns the exit status.
int finish(bool failed, std::string error, int signal, std::string const& reportPath, std::function<void()> const& write) {
  if (!reportPath.empty()) {
    try {
      write();
    } catch (Exception const& reportError) {
      error = withFailure(failed ? error : "", reportError.what());
      failed = true;
    }
  }
  if (failed) std::cerr << "lanes: error: " << error << "\n";
  return exitStatus(failed, signal);
}

RunReport runPart(EventProcessor& processor, ProcessPart const* part, RunArguments const& arguments, SignalStop* signals) {
  std::optional<SignalStop> ownSignals;
  if (!signals) signals = &ownSignals.emplace(SignalStop::Role::Worker);
  signals->attach(processor);
  auto const pinner = pinJobThreads(arguments.pin, processor, part ? part->seat : 0, part ? part->seats : 1);
  ModuleStatistics statistics;
  processor.addObserver(&statistics);
  std::unique_ptr<TraceRecorder> trace;
  if (!arguments.trace.empty()) {
    trace = std::make_unique<TraceRecorder>(partPath(arguments.trace, part ? part->name : ""));
    processor.addObserver(trace.get());
  }
  std::optional<Watchdog> watchdog;
  if (auto const seconds = watchdogSeconds(arguments); seconds > 0) {
    auto const action = parseWatchdogAction(arguments.watchdogAction.empty() ? "warn" : arguments.watchdogAction);
    watchdog.emplace(processor, seconds, action, [signals] { signals->abort(1); });
  }
  ProgressTicker ticker;  // silent unless stderr is a terminal, and for the workers of a multi-process job
  if (!part) processor.addObserver(&ticker);

  auto const usageBefore = ResourceUsage::sample();
  auto const start = Clock::now();
  auto const summary = part ? processor.process(*part) : processor.run();
  auto const wall = Clock::now() - start;
  auto report = RunReport::build(processor.info(), statistics, summary, wall, ResourceUsage::sample().since(usageBefore),
                                 processor.moduleDetails());
  if (pinner) report.sections["pinning"] = pinningReport(arguments.pin, *pinner);
  if (watchdog) noteWatchdog(*watchdog, report);
  report.stopRequested = report.stopRequested || signals->signalled();
  if (trace) {
    try {
      trace->close();
    } catch (Exception const& error) {
      report.failed = true;
      report.error = withFailure(report.error, error.what());
    }
  }
  processor.clearObservers();
  processor.onThreadEntry({});  // the pinner goes now
  return report;
}


int runSingleProcess(RunArguments const& arguments) {
  SignalStop signalStop;  // before any thread starts
  auto job = makeJob(arguments);
  auto const files = outputFiles(job);
  warnAboutStalePartials(files);
  signalStop.onAbort([&files] { removeOwnPartials(files); });
  EventProcessor processor(std::move(job));
  auto const report = runPart(processor, nullptr, arguments, &signalStop);
  report.printTable(std::cout);
  return finish(report.failed, report.error, signalStop.signalled(), arguments.report,
                [&] { report.writeJson(arguments.report); });
}

node::MultiProcessOptions multiProcessOptions(RunArguments const& arguments) {
  node::MultiProcessOptions options;
  options.processes = arguments.processes;
  options.distribution = node::parseDistribution(arguments.distribution);
  options.chunk = arguments.chunk;
  options.eventsBeforeFork = arguments.eventsBeforeFork;
  options.fork = !arguments.noFork;
  options.retryLost = arguments.retryLost;
  options.retryLimit = arguments.retryLimit;
  options.outputMode = node::parseOutputMode(arguments.outputMode);
  // The independent jobs of --no-fork run this very command line.
  std::ifstream cmdline("/proc/self/cmdline");
  for (std::string argument; std::getline(cmdline, argument, '\0');) options.commandLine.push_back(argument);
  node::validate(options);
  return options;
}

// A job started with exec by the parent of a --no-fork job.
int runExecWorker(RunArguments const& arguments) {
  SignalStop signalStop(SignalStop::Role::Worker);  // before any thread starts
  auto const role = node::WorkerRole::parse(arguments.workerRole);
  auto const options = multiProcessOptions(arguments);
  EventProcessor processor(makeJob(arguments));
  return node::runWorkerProcess(processor, options, role, [&](EventProcessor& p, ProcessPart const& part) {
    return runPart(p, &part, arguments, &signalStop).toJson();
  });
}

int runMultiProcess(RunArguments const& arguments) {
  auto const options = multiProcessOptions(arguments);
  auto job = makeJob(arguments);
  warnAboutStalePartials(outputFiles(job));
  EventProcessor processor(std::move(job));  // no SignalStop: its thread would be there at the fork
  node::validate(options, processor);            // before anything runs
  auto const report = node::runMultiProcess(processor, options, [&](EventProcessor& p, ProcessPart const& part) {
    return runPart(p, &part, arguments, nullptr).toJson();
  });
  node::printMultiProcessReport(report, std::cout);
  if (report["aborted"].get<bool>()) return 128 + report["signal"].get<int>();  // said so already
  return finish(report["failed"].get<bool>(), report["error"].get<std::string>(), report["signal"].get<int>(),
                arguments.report,
                [&] { writeAtomically(arguments.report, [&](std::ostream& out) { out << report.dump(2) << "\n"; }); });
}

int runJob(RunArguments const& arguments) {
  if (!arguments.watchdogAction.empty() && watchdogSeconds(arguments) == 0) {
    throw Exception("--watchdog-action needs a watchdog: give --watchdog SECONDS");
  }
  requireWritableDirectory(arguments.report, "report");
  requireWritableDirectory(arguments.trace, "trace");
  if (!arguments.workerRole.empty()) return runExecWorker(arguments);
  if (arguments.processes) return runMultiProcess(arguments);
  return runSingleProcess(arguments);
}

}  // namespace

void addRunCommand(CLI::App& app, int& exitCode) {
  auto arguments = std::make_shared<RunArguments>();
  auto* run = app.add_subcommand("run", "Run a job (with no arguments: the built-in NanoAOD-like default job)");
  run->add_option("-t,--threads", arguments->threads, "Worker threads (default: the machine's cores)")
      ->check(CLI::PositiveNumber);
  run->add_option("-l,--lanes", arguments->lanes, "Events in flight (default: as many as threads)")
      ->check(CLI::PositiveNumber);
  run->add_option_function<std::uint64_t>(
         "-n,--events",
         [arguments](std::uint64_t n) {
           arguments->events = n;
           arguments->eventsGiven = true;
         },
         "Events to process; 0 = until the source ends (default: 1000)");
  run->add_option("--source", arguments->source, "Source SPEC, e.g. synthetic:profile=FILE,repeat=100");
  // One SPEC per occurrence: `--module a b` is an error, not two modules.
  run->add_option("--waiter", arguments->waiters, "Waiter SPEC, e.g. busy:scale=1e-9 (repeatable)")->allow_extra_args(false);
  run->add_option("--module", arguments->modules, "Module SPEC, e.g. fault:at=5,action=throw (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--output", arguments->outputs, "Output SPEC, e.g. dummy:ready=true (repeatable)")->allow_extra_args(false);
  run->add_option("--menu", arguments->menu, "Menu file (TOML) describing source, modules, paths, outputs")
      ->check(CLI::ExistingFile);
  run->add_option("--report", arguments->report, "Write the run report as JSON to FILE");
  run->add_option("--trace", arguments->trace, "Write every call as a Chrome trace (Perfetto) to FILE");
  run->add_option("--on-error", arguments->onError, "stop: end the job at the first failure; skip: drop failed events")
      ->check(CLI::IsMember({"stop", "skip"}));
  run->add_option("--pin", arguments->pin,
                  "Bind each thread to its own PU: numa-compact, numa-spread, smt-shared, random[:SEED] or none "
                  "(see `lanes pin --help`)");
  run->add_option("-p,--processes", arguments->processes,
                  "Multi-process mode: initialise once, then fork P workers that share memory copy-on-write, "
                  "each with -t threads and -l lanes; their outputs are merged")
      ->check(CLI::PositiveNumber);
  run->add_option("--distribution", arguments->distribution,
                  "How workers share events: queue (chunks as they become free) or round-robin (worker r: r, r+P, ...)")
      ->check(CLI::IsMember({"queue", "round-robin"}));
  run->add_option("--chunk", arguments->chunk, "Events a worker takes from the queue at a time (default: 10)")
      ->check(CLI::PositiveNumber);
  run->add_option("--events-before-fork", arguments->eventsBeforeFork,
                  "Events the parent processes (one thread) before it forks; they are written too");
  run->add_flag("--no-fork", arguments->noFork,
                "With --processes: run P independent jobs instead (the multi-job baseline for memory)");
  run->add_flag("--retry-lost", arguments->retryLost,
                "With --processes: a worker that crashes has its events processed by a new worker");
  run->add_option("--retry-limit", arguments->retryLimit,
                  "With --retry-lost: how many times the same events are retried before the job fails (default: 2)")
      ->check(CLI::PositiveNumber)
      ->needs("--retry-lost");
  run->add_option("--output-mode", arguments->outputMode,
                  "With --processes: merge (each worker writes its part, merged at the end) or shared-writer "
                  "(workers ship batches through shared memory to the parent, which writes them as they come; "
                  "root and parallel-root outputs)")
      ->check(CLI::IsMember({"merge", "shared-writer"}));
  run->add_option("--watchdog", arguments->watchdog,
                  "Name a module call or lane that makes no progress for SECONDS (default: off; 600 with "
                  "--processes; 0: off)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--watchdog-action", arguments->watchdogAction,
                  "What a hang also does: warn (default), stop (gracefully, then fail) or abort (at once, no output)")
      ->check(CLI::IsMember({"warn", "stop", "abort"}));
  run->add_option("--worker-role", arguments->workerRole)->group("");  // lanes' own, for --no-fork
  for (auto const* name :
       {"--distribution", "--chunk", "--events-before-fork", "--no-fork", "--retry-lost", "--output-mode"}) {
    run->get_option(name)->needs("--processes");
  }
  addAccelOptions(*run);
  run->footer(
      "SPEC is name:key=value,key=value. Repeat a key for a list (file=a.root,file=b.root).\n"
      "`lanes plugins` lists the sources, modules, waiters and outputs with their options.");
  run->callback([arguments, &exitCode] { exitCode = runJob(*arguments); });
}

}  // namespace lanes::cli
