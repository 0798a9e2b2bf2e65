#include "RunCommand.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <thread>

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

int runJob(RunArguments const& arguments) {
  requireWritableDirectory(arguments.report, "report");
  requireWritableDirectory(arguments.trace, "trace");
  SignalStop signalStop;  // before any thread starts
  EventProcessor processor(makeJob(arguments));
  signalStop.attach(processor);
  auto const pinner = pinJobThreads(arguments.pin, processor);
  ModuleStatistics statistics;
  processor.addObserver(&statistics);
  std::unique_ptr<TraceRecorder> trace;
  if (!arguments.trace.empty()) {
    trace = std::make_unique<TraceRecorder>();
    processor.addObserver(trace.get());
  }
  ProgressTicker ticker;  // silent unless stderr is a terminal
  processor.addObserver(&ticker);

  auto const usageBefore = ResourceUsage::sample();
  auto const start = Clock::now();
  auto const summary = processor.run();
  auto const wall = Clock::now() - start;
  auto report = RunReport::build(processor.info(), statistics, summary, wall, ResourceUsage::sample().since(usageBefore),
                                 processor.moduleDetails());
  if (pinner) report.sections["pinning"] = pinningReport(arguments.pin, *pinner);

  report.printTable(std::cout);
  if (!arguments.report.empty()) report.writeJson(arguments.report);
  if (trace) trace->write(arguments.trace);
  if (summary.failed) {
    std::cerr << "lanes: error: " << summary.error << "\n";
    return 1;
  }
  return signalStop.signalled() ? 128 + signalStop.signalled() : 0;
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
  run->footer(
      "SPEC is name:key=value,key=value. Repeat a key for a list (file=a.root,file=b.root).\n"
      "`lanes plugins` lists the sources, modules, waiters and outputs with their options.");
  run->callback([arguments, &exitCode] { exitCode = runJob(*arguments); });
}

}  // namespace lanes::cli
