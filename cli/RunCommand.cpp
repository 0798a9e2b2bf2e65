#include "RunCommand.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <iostream>
#include <thread>

#include "AccelOptions.h"
#include "CleanCommand.h"
#include "FatalSignals.h"
#include "HtmlReport.h"
#include "InstallLayout.h"
#include "JobProvenance.h"
#include "Menu.h"
#include "OptionalPlugins.h"
#include "MultiProcessTrace.h"
#include "PinCommand.h"
#include "PluginLibraries.h"
#include "SignalStop.h"
#include "StartupReport.h"
#include "StrayOutput.h"
#include "WholeNumber.h"
#include "ConditionsOptions.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/Exception.h"
#include "lanes/core/JobFiles.h"
#include "lanes/core/PathClaim.h"
#include "lanes/core/StartupMarks.h"
#include "lanes/monitor/MemorySampler.h"
#include "lanes/monitor/ProgressTicker.h"
#include "lanes/monitor/ResourceUsage.h"
#include "lanes/monitor/RunReport.h"
#include "lanes/monitor/RunStatistics.h"
#include "lanes/monitor/TraceRecorder.h"
#include "lanes/monitor/Watchdog.h"
#include "lanes/monitor/AtomicFile.h"
#include "lanes/node/MpiJob.h"
#include "lanes/node/MultiProcessJob.h"

namespace lanes::cli {

namespace {

// The built-in default: CMS NanoAOD-sized products (profile derived once from
// the real file in shared/data by lanes.tools.derive_profile), a busy waiter per
// product, a dummy output.
void addDefaultJob(JobConfig& config) {
  config.source = PluginSpec::parse("synthetic:profile=" + lanesFile("data/profiles/nanoaod.json"));
  config.waiters.push_back(PluginSpec::parse("busy:scale=1e-6"));
  config.outputs.push_back({"out", PluginSpec::parse("dummy"), {}});
}

// `--module producer:label=tracks,...`: the label comes out of the options
// (default: the plugin name, numbered if repeated; a label given twice is an
// error, as in a menu).
std::string takeLabel(PluginSpec& spec, std::vector<std::string>& used) {
  auto const given = spec.options.take("label");
  if (given && given->empty()) throw Exception("'" + spec.name + ":label=' is empty: give a label or leave it out");
  auto label = given.value_or(spec.name);
  bool const taken = std::find(used.begin(), used.end(), label) != used.end();
  if (taken && given) throw Exception("two modules are labelled '" + label + "'");
  if (taken) {
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

// More threads, processes or lanes than this are a typo, not a study of
// oversubscription: the machine's PUs (or a thread's lanes) times this.
constexpr unsigned kOversubscription = 64;

unsigned machinePus() { return std::max(1u, std::thread::hardware_concurrency()); }

void requireAtMost(std::uint64_t value, std::uint64_t bound, std::string const& what, std::string const& why) {
  if (value > bound) {
    throw Exception(what + " " + std::to_string(value) + " is more than " + std::to_string(bound) + " (" + why + ")");
  }
}

void requireSaneSize(JobConfig const& config, RunArguments const& arguments) {
  auto const pus = machinePus();
  auto const perPu = std::to_string(kOversubscription) + " x the machine's " + std::to_string(pus) + " PUs";
  requireAtMost(config.threads, std::uint64_t{kOversubscription} * pus, "threads", perPu);
  requireAtMost(arguments.processes, std::uint64_t{kOversubscription} * pus, "--processes", perPu);
  requireAtMost(config.lanes, std::uint64_t{kOversubscription} * config.threads, "lanes",
                std::to_string(kOversubscription) + " x the " + std::to_string(config.threads) + " threads");
  if (config.maxEvents) {
    requireAtMost(arguments.eventsBeforeFork, config.maxEvents, "--events-before-fork",
                  "the job's " + std::to_string(config.maxEvents) + " events");
  }
}

// The files the job reads and writes: its plugins', the menu, the report and the trace.
std::vector<JobFile> filesOf(JobConfig const& config, RunArguments const& arguments) {
  auto files = jobFiles(config);
  if (!arguments.menu.empty()) files.push_back({arguments.menu, false, "the menu (--menu " + arguments.menu + ")"});
  if (!arguments.report.empty()) files.push_back({arguments.report, true, "the report (--report " + arguments.report + ")"});
  if (!arguments.trace.empty()) files.push_back({arguments.trace, true, "the trace (--trace " + arguments.trace + ")"});
  if (!arguments.html.empty()) files.push_back({arguments.html, true, "the HTML report (--html " + arguments.html + ")"});
  return files;
}

}  // namespace

JobConfig makeJob(RunArguments const& arguments) {
  JobConfig config;
  MenuJobSettings menu;
  if (!arguments.menu.empty()) {
    requireRegularInput(arguments.menu, "the menu (--menu " + arguments.menu + ")");
    menu = loadMenu(arguments.menu, config);
  }
  loadPluginLibraries(arguments.pluginLibraries, menu.pluginLibraries);  // before anything looks a plugin up
  bool const describesJob = !arguments.menu.empty() || arguments.sourceGiven || !arguments.waiters.empty() ||
                            !arguments.modules.empty() || !arguments.outputs.empty();
  if (!describesJob) addDefaultJob(config);
  if (arguments.sourceGiven) config.source = PluginSpec::parse(arguments.source);
  for (auto const& waiter : arguments.waiters) config.waiters.push_back(PluginSpec::parse(waiter));
  std::vector<std::string> labels;
  for (auto const& module : config.modules) labels.push_back(module.label);  // the menu's
  for (auto const& output : config.outputs) labels.push_back(output.label);
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
  loadOptionalPlugins(config);  // the python module's library, say, only for a job that names it
  unsigned const cores = std::max(1u, std::thread::hardware_concurrency());
  config.threads = arguments.threads ? arguments.threads : (menu.threads ? menu.threads : cores);
  config.lanes = arguments.lanes ? arguments.lanes : menu.lanes;
  config.maxEvents = arguments.eventsGiven || !menu.hasEvents ? arguments.events : menu.events;
  if (arguments.endless && !arguments.eventsGiven && !menu.hasEvents) config.maxEvents = 0;
  config.endless = arguments.endless;
  if (arguments.endless && config.maxEvents) {
    throw Exception("--endless runs until a signal stops the job; it excludes -n " + std::to_string(config.maxEvents) +
                    " (give -n 0 or leave -n out)");
  }
  config.timingSample = arguments.monitorSample;
  config.concurrentLumis = arguments.concurrentLumis   ? arguments.concurrentLumis
                           : menu.concurrentLumis       ? menu.concurrentLumis
                                                        : JobConfig::kDefaultConcurrentLumis;
  config.concurrentRuns = arguments.concurrentRuns ? arguments.concurrentRuns
                          : menu.concurrentRuns     ? menu.concurrentRuns
                                                    : JobConfig::kDefaultConcurrentRuns;
  for (auto const& text : arguments.conditions) config.conditions.push_back(conditionsRecord(PluginSpec::parse(text)));
  if (arguments.onError == "skip") {
    config.onError = ErrorPolicy::Skip;
  } else if (arguments.onError != "stop") {
    throw Exception("--on-error must be 'stop' or 'skip', not '" + arguments.onError + "'");
  }
  requireSaneSize(config, arguments);
  requireDistinctFiles(filesOf(config, arguments));
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

WatchdogAction watchdogAction(RunArguments const& arguments) {
  return parseWatchdogAction(arguments.watchdogAction.empty() ? "warn" : arguments.watchdogAction);
}

// A stopped job failed, naming what hung.
void noteWatchdog(Watchdog const& watchdog, RunReport& report) {
  report.sections["watchdog"] = watchdog.toJson();
  if (watchdog.action() != WatchdogAction::Stop || watchdog.firstHang().empty() || report.failed) return;
  report.failed = true;
  report.error = "watchdog: " + watchdog.firstHang() + "; the job was stopped";
}

// The job's progress line: JSON or heartbeat lines when asked for, else the
// live line on a terminal. Drawn by the process that runs the job, or by the
// parent of a multi-process job (from its workers' counts); an MPI rank
// draws its own heartbeat lines only.
ProgressStyle progressStyle(RunArguments const& arguments) {
  if (arguments.progressJson) return ProgressStyle::Json;
  if (arguments.progress > 0) return ProgressStyle::Heartbeat;
  return ::isatty(terminalFd()) == 1 ? ProgressStyle::Live : ProgressStyle::Off;
}

std::chrono::milliseconds progressPeriod(RunArguments const& arguments) {
  return std::chrono::milliseconds(arguments.progress ? std::max(1L, std::lround(arguments.progress * 1000)) : 500);
}

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

// A JSON report (of a multi-process or MPI job) written to `path`.
void writeJsonReport(std::string const& path, nlohmann::json const& report) {
  writeAtomically(path, [&](std::ostream& out) { out << report.dump(2) << "\n"; });
}

// finish() for a JSON report that carries the job's failed, error and signal.
int finishJson(nlohmann::json const& report, std::string const& reportPath) {
  return finish(report["failed"].get<bool>(), report["error"].get<std::string>(), report["signal"].get<int>(),
                reportPath, [&] { writeJsonReport(reportPath, report); });
}

// Once per job, by the process that runs it or forks its workers (not by
// the exec'd workers of --no-fork, which build the source again).
void warnAboutSkippedFiles(EventProcessor const& processor) {
  auto const details = processor.sourceDetails();
  if (details.empty()) return;
  auto const source = nlohmann::json::parse(details);
  for (auto const& skipped : source.value("skipped_files", nlohmann::json::array())) {
    std::cerr << "lanes: warning: skipped '" << skipped["file"].get<std::string>()
              << "': " << skipped["error"].get<std::string>() << "\n";
  }
}

// A job that succeeded says in one warning what was written to stderr
// behind lanes' back (a failed job's error says it): its parts' reports'
// `stray_output`, `parts` (those that have one).
void warnAboutStrayOutput(std::vector<nlohmann::json const*> const& parts) {
  StrayLines stray;
  for (auto const* part : parts) {
    stray.count += (*part)["lines"].get<std::uint64_t>();
    for (auto const& line : (*part)["first"]) stray.first.push_back(line.get<std::string>());
  }
  if (stray.count > 0) std::cerr << "lanes: warning: " << stray.describe() << " (the report's stray_output keeps them)\n";
}

SummaryRows summaryRows(RunArguments const& arguments) {
  return arguments.summary == "full" ? SummaryRows::all() : SummaryRows{};
}

// One part of a job with the monitor attached: the whole job in a single
// process, or a worker's share of a multi-process job. `signals` is the
// process's SignalStop, or nullptr for a forked worker, which makes its own
// (it has a single thread, as a SignalStop needs). `progress`: the part's
// own progress line. `provenance`: the job's, as it started.
RunReport runPart(EventProcessor& processor, ProcessPart const* part, RunArguments const& arguments, SignalStop* signals,
                  ProgressStyle progress, Provenance const& provenance) {
  if (!signals && part && part->seats > 0) captureStrayOutput();  // a forked worker: its parent captures nothing
  std::optional<SignalStop> ownSignals;
  if (!signals) signals = &ownSignals.emplace(SignalStop::Role::Worker);
  signals->attach(processor);
  auto const pinner = pinJobThreads(arguments.pin, processor, part ? part->seat : 0, part ? part->seats : 1);
  processor.onThreadEntry([pinner = pinner.get()] {
    giveThreadSignalStack();  // every thread of the job may read a file
    if (pinner) pinner->pinCallingThread();
  });
  RunStatistics statistics;
  processor.addObserver(&statistics);
  std::unique_ptr<TraceRecorder> trace;
  if (!arguments.trace.empty()) {
    trace = std::make_unique<TraceRecorder>(partPath(arguments.trace, part ? part->name : ""));
    processor.addObserver(trace.get());
  }
  std::optional<Watchdog> watchdog;
  if (auto const seconds = watchdogSeconds(arguments); seconds > 0) {
    watchdog.emplace(processor, seconds, watchdogAction(arguments), [signals] { signals->abort(1); });
  }
  ProgressTicker ticker(std::cerr, progress, progressPeriod(arguments), part ? part->name : "");
  processor.addObserver(&ticker);

  auto const usageBefore = ResourceUsage::sample();
  auto const start = Clock::now();
  MemorySampler memory(std::chrono::milliseconds(20), 512, [&statistics] { return statistics.events.eventsInFlight(); });
  auto const summary = part ? processor.process(*part) : processor.run();
  auto const wall = Clock::now() - start;
  memory.stop();
  auto report = RunReport::build(processor.info(), statistics.modules, summary, wall,
                                 ResourceUsage::sample().since(usageBefore), processor.moduleDetails(),
                                 processor.sourceDetails());
  statistics.addTo(report);
  report.memory = memory.toJson();
  report.activity = memory.activityJson();
  report.provenance = provenance;
  if (pinner) report.sections["pinning"] = pinningReport(arguments.pin, *pinner);
  if (auto accel = accelReport(); !accel.is_null()) report.sections["accel"] = std::move(accel);
  if (watchdog) noteWatchdog(*watchdog, report);
  if (summary.configurationError) report.sections["configuration_error"] = true;
  if (auto libraries = loadedPluginLibraries(); !libraries.empty()) report.sections["plugin_libraries"] = libraries;
  if (auto const stray = strayLines(); stray.count > 0) {
    report.sections["stray_output"] = stray.toJson();
    if (report.failed) report.error = withFailure(report.error, stray.describe());
  }
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
  auto const provenance = jobProvenance(arguments.menu);
  markStartup("command");
  auto job = makeJob(arguments);
  markStartup("plugins");
  auto const written = filesOf(job, arguments);
  auto const files = outputFiles(job);
  signalStop.onAbort([&files] {
    removeOwnPartials(files);
    releaseClaims();  // nothing of this job's is left for its claims to name
  });
  EventProcessor processor(std::move(job));
  markStartup("construction");
  claimJobFiles(written);
  warnAboutSkippedFiles(processor);
  auto report = runPart(processor, nullptr, arguments, &signalStop, progressStyle(arguments), provenance);
  report.sections["startup"] = startupJson();
  if (report.sections.count("configuration_error")) {  // bad input, found as the modules began: no event ran
    std::cerr << "lanes: error: " << report.error << "\n";
    return 2;
  }
  report.printTable(std::cout, summaryRows(arguments));
  if (auto const stray = report.sections.find("stray_output"); !report.failed && stray != report.sections.end()) {
    warnAboutStrayOutput({&stray->second});
  }
  auto const status = finish(report.failed, report.error, signalStop.signalled(), arguments.report,
                             [&] { report.writeJson(arguments.report); });
  return writeHtmlReport(arguments, report.toJson(), status);
}

constexpr std::uint64_t kDefaultChunk = 10;

std::uint64_t chunkOf(RunArguments const& arguments) { return arguments.chunk ? arguments.chunk : kDefaultChunk; }

node::OutputMode outputModeOf(RunArguments const& arguments) {
  return node::parseOutputMode(arguments.outputMode.empty() ? "merge" : arguments.outputMode);
}

node::MultiProcessOptions multiProcessOptions(RunArguments const& arguments) {
  node::MultiProcessOptions options;
  options.processes = arguments.processes;
  options.distribution = node::parseDistribution(arguments.distribution.empty() ? "queue" : arguments.distribution);
  if (arguments.chunkByFile) {
    throw Exception("--chunk file hands whole input files to MPI ranks; --processes takes chunks of events: give --chunk N");
  }
  options.chunk = chunkOf(arguments);
  options.eventsBeforeFork = arguments.eventsBeforeFork;
  options.fork = !arguments.noFork;
  options.retryLost = arguments.retryLost;
  options.retryLimit = arguments.retryLimit;
  options.outputMode = outputModeOf(arguments);
  options.progress = progressStyle(arguments);
  options.progressPeriod = progressPeriod(arguments);
  options.watchdogSeconds = watchdogSeconds(arguments);
  options.watchdogAction = watchdogAction(arguments);
  options.commandLine = commandLine();  // the independent jobs of --no-fork run this very command line
  node::validate(options);
  return options;
}

// A job started with exec by the parent of a --no-fork job.
int runExecWorker(RunArguments const& arguments) {
  SignalStop signalStop(SignalStop::Role::Worker);  // before any thread starts
  auto const role = node::WorkerRole::parse(arguments.workerRole);
  auto const options = multiProcessOptions(arguments);
  auto const provenance = jobProvenance(arguments.menu);
  EventProcessor processor(makeJob(arguments));
  return node::runWorkerProcess(processor, options, role, [&](EventProcessor& p, ProcessPart const& part) {
    return runPart(p, &part, arguments, &signalStop, ProgressStyle::Off, provenance).toJson();
  });
}

int runMultiProcess(RunArguments const& arguments) {
  auto const provenance = jobProvenance(arguments.menu);
  auto options = multiProcessOptions(arguments);
  std::vector<TraceSlice> parentWork;  // for --trace
  if (!arguments.trace.empty()) {
    options.onParentWork = [&parentWork](char const* what, std::int64_t begin, std::int64_t end) {
      parentWork.push_back({what, begin, end});
    };
  }
  auto job = makeJob(arguments);
  requireOneProcessPlugins(job, "--processes");
  auto const written = filesOf(job, arguments);
  EventProcessor processor(std::move(job));  // no SignalStop: its thread would be there at the fork
  node::validate(options, processor);            // before anything runs
  claimJobFiles(written);
  warnAboutSkippedFiles(processor);
  auto const origin = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  auto report = node::runMultiProcess(processor, options, [&](EventProcessor& p, ProcessPart const& part) {
    return runPart(p, &part, arguments, nullptr, ProgressStyle::Off, provenance).toJson();
  });
  report["provenance"] = provenance.toJson();
  addPartHosts(report);
  if (!arguments.trace.empty()) finishJobTrace(arguments.trace, report, origin, parentWork);
  if (auto const source = processor.sourceDetails(); !source.empty()) report["source"] = nlohmann::json::parse(source);
  if (report.value("configuration_error", false)) {  // bad input, found as a worker's outputs began: as in one process
    std::cerr << "lanes: error: " << report["error"].get<std::string>() << "\n";
    return 2;
  }
  node::printMultiProcessReport(report, std::cout, summaryRows(arguments));
  printSkippedInputs(report.value("source", nlohmann::json()), std::cout);
  if (!report["failed"].get<bool>()) {
    std::vector<nlohmann::json const*> parts;
    for (auto const& worker : report["workers"]) {
      if (worker.contains("report") && worker["report"].contains("stray_output")) {
        parts.push_back(&worker["report"]["stray_output"]);
      }
    }
    warnAboutStrayOutput(parts);
  }
  if (report["aborted"].get<bool>()) {  // said so already; the report is written still, if it can be
    if (!arguments.report.empty()) {
      try {
        writeJsonReport(arguments.report, report);
      } catch (Exception const& error) {
        std::cerr << "lanes: error: " << error.what() << "\n";
      }
    }
    return 128 + report["signal"].get<int>();
  }
  return writeHtmlReport(arguments, report, finishJson(report, arguments.report));
}

#if LANES_HAVE_MPI

// What a rank of an MPI job cannot do (yet), refused before anything runs.
void refuseUnderMpi(RunArguments const& arguments) {
  if (arguments.processes) {
    throw Exception("--processes cannot be combined with MPI ranks (forking after MPI_Init is unsafe with some "
                    "transports): start more ranks instead");
  }
  if (arguments.progressJson) {
    throw Exception("--progress-json: the ranks of an MPI job draw heartbeat lines only (--progress SECONDS)");
  }
}

node::MpiOptions mpiOptions(RunArguments const& arguments, JobConfig const& job) {
  node::MpiOptions options;
  options.distribution = node::parseMpiDistribution(arguments.distribution.empty() ? "mpi-queue" : arguments.distribution);
  options.chunk = chunkOf(arguments);
  options.byFile = arguments.chunkByFile;
  options.events = job.maxEvents;
  options.outputMode = outputModeOf(arguments);
  options.trace = arguments.trace;
  node::validate(options);
  return options;
}

// One rank of an MPI job (node/MpiJob.h). Every rank builds and begins the
// job; they agree that all did before any event runs (a bad input is
// reported once, by the lowest rank that found it), and only rank 0 prints.
int runMpiRank(RunArguments const& arguments) {
  SignalStop signalStop;  // before MPI starts its threads
  node::MpiSession session;
  reportFatalSignals("rank " + std::to_string(session.rank()) + ": ");
  std::optional<EventProcessor> processor;
  node::MpiOptions options;
  Provenance provenance;
  std::string error;
  try {
    refuseUnderMpi(arguments);
    provenance = jobProvenance(arguments.menu);
    auto job = makeJob(arguments);
    requireOneProcessPlugins(job, "an MPI job");
    options = mpiOptions(arguments, job);
    auto const written = filesOf(job, arguments);
    processor.emplace(std::move(job));
    if (session.rank() == 0) claimJobFiles(written, session.size());  // rank 0 writes the job's files
    node::validate(options, *processor);
    processor->beginJob();
    if (options.byFile) node::countRankFiles(processor->source(), options, session.rank(), session.size());
  } catch (Exception const& failure) {
    error = failure.what();
  }
  if (auto const first = session.firstFailing(!error.empty()); first < session.size()) {
    if (session.rank() == first) std::cerr << "lanes: error: " << (first ? "rank " + std::to_string(first) + ": " : "") << error << "\n";
    return 2;
  }
  auto rankArguments = arguments;  // a rank records its part of the trace where node::runMpi gathers it from
  if (!arguments.trace.empty()) rankArguments.trace = node::mpiTraceRecording();
  auto report = node::runMpi(*processor, session, options, [&](EventProcessor& p, ProcessPart const& part) {
    auto json = runPart(p, &part, rankArguments, &signalStop,
                        arguments.progress > 0 ? ProgressStyle::Heartbeat : ProgressStyle::Off, provenance).toJson();
    json["signal"] = signalStop.signalled();
    return json;
  });
  // Rank 0 writes its files and releases the other ranks before it prints:
  // after Ctrl-C to mpirun, OpenMPI stops reading the ranks' output, and a
  // summary longer than the pipe holds would keep rank 0, and every rank
  // waiting for its status, from ending until mpirun kills them.
  int status = 0;
  if (session.rank() == 0) {
    report["provenance"] = provenance.toJson();
    addPartHosts(report);
    status = writeHtmlReport(arguments, report, finishJson(report, arguments.report));
  }
  status = session.fromRankZero(status);
  if (session.rank() == 0) node::printMpiReport(report, std::cout, summaryRows(arguments));
  return status;
}

#else

int runMpiRank(RunArguments const& arguments) {
  throw Exception(arguments.mpi ? "--mpi: this lanes was built without MPI (install libopenmpi-dev and reconfigure)"
                                : "started by an MPI launcher, but this lanes was built without MPI (each rank would run "
                                  "the whole job): rebuild with MPI or run it without mpirun");
}

#endif

// --distribution, --chunk and --output-mode share the events of several
// processes: forked workers or MPI ranks.
void requireSeveralProcesses(RunArguments const& arguments, bool mpi) {
  if (arguments.processes || mpi) return;
  if (!arguments.distribution.empty()) throw Exception("--distribution requires --processes (or an MPI job: mpirun, --mpi)");
  if (arguments.chunk || arguments.chunkByFile) throw Exception("--chunk requires --processes (or an MPI job: mpirun, --mpi)");
  if (!arguments.outputMode.empty()) throw Exception("--output-mode requires --processes (or an MPI job: mpirun, --mpi)");
}

int runJob(RunArguments const& arguments) {
  bool const mpi = arguments.mpi || node::startedByMpiLauncher();
  bool const forksWorkers = !mpi && arguments.processes && arguments.workerRole.empty();
  if (!forksWorkers) captureStrayOutput();  // no thread may run at a fork: each worker captures its own
  reportFatalSignals();  // before the source opens a file
  if (!arguments.watchdogAction.empty() && watchdogSeconds(arguments) == 0) {
    throw Exception("--watchdog-action needs a watchdog: give --watchdog SECONDS");
  }
  requireWritableDirectory(arguments.report, "report");
  requireWritableDirectory(arguments.trace, "trace");
  requireWritableDirectory(arguments.html, "HTML report");
  requireSeveralProcesses(arguments, mpi);
  if (!mpi && !arguments.workerRole.empty()) return runExecWorker(arguments);  // its parent claimed the job's files
  auto const status = mpi ? runMpiRank(arguments) : arguments.processes ? runMultiProcess(arguments)
                                                                       : runSingleProcess(arguments);
  releaseClaims();  // the job's files are in place (or removed): other jobs may write them
  return status;
}

// --chunk: a number of events, or "file".
CLI::Validator chunkSize() {
  auto const events = wholeNumber(1, 1'000'000'000);
  return CLI::Validator(
      [events](std::string& text) -> std::string {
        if (text == "file") return {};
        auto const why = events(text);
        return why.empty() ? why : why + " (or 'file')";
      },
      "INT|file");
}

}  // namespace

void addRunCommand(CLI::App& app, int& exitCode) {
  auto arguments = std::make_shared<RunArguments>();
  auto* run = app.add_subcommand("run", "Run a job (with no arguments: the built-in NanoAOD-like default job)");
  auto const anyCount = wholeNumber(0, std::numeric_limits<std::int64_t>::max());
  auto const positiveCount = wholeNumber(1, std::numeric_limits<unsigned>::max());
  run->add_option("-t,--threads", arguments->threads, "Worker threads (default: the machine's cores; at most 64 x its PUs)")
      ->check(positiveCount);
  run->add_option("-l,--lanes", arguments->lanes, "Events in flight (default: as many as threads; at most 64 x threads)")
      ->check(positiveCount);
  run->add_option("--concurrent-lumis", arguments->concurrentLumis,
                  "Luminosity blocks in flight at once: with 1, a lumi's events all finish before the next lumi "
                  "begins (default: " + std::to_string(JobConfig::kDefaultConcurrentLumis) + ")")
      ->check(positiveCount);
  run->add_option("--conditions", arguments->conditions,
                  "A conditions record, e.g. calib:every=10,bytes=1000000,load=0.005,concurrent-iovs=2 or "
                  "calib:table=iovs.toml (repeatable; docs/running.md)")
      ->allow_extra_args(false);
  run->add_option("--concurrent-runs", arguments->concurrentRuns,
                  "Runs in flight at once (default: " + std::to_string(JobConfig::kDefaultConcurrentRuns) + ")")
      ->check(positiveCount);
  run->add_option_function<std::uint64_t>(
         "-n,--events",
         [arguments](std::uint64_t n) {
           arguments->events = n;
           arguments->eventsGiven = true;
         },
         "Events to process; 0 = until the source ends (default: 1000)")
      ->check(anyCount);
  run->add_flag("--progress-json", arguments->progressJson,
                "Progress as JSON lines on stderr instead, {events, total, elapsed_s, finished}, every --progress "
                "SECONDS (default 0.5): for a program that draws its own bar (the Python API's)");
  run->add_flag("--endless", arguments->endless, "Run a source that never ends until a signal stops the job (-n 0; without it such a job is refused)");
  run->add_option("--progress", arguments->progress,
                  "A progress line (events, rate, elapsed, % and ETA when the total is known) every SECONDS "
                  "(default: a live line when stderr is a terminal)")
      ->check(positiveSeconds());
  run->add_option_function<std::string>(
      "--source",
      [arguments](std::string const& spec) {
        arguments->source = spec;
        arguments->sourceGiven = true;
      },
      "Source SPEC, e.g. synthetic:profile=FILE,repeat=100");
  // One SPEC per occurrence: `--module a b` is an error, not two modules.
  run->add_option("--waiter", arguments->waiters, "Waiter SPEC, e.g. busy:scale=1e-9 (repeatable)")->allow_extra_args(false);
  run->add_option("--module", arguments->modules, "Module SPEC, e.g. fault:at=5,action=throw (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--output", arguments->outputs, "Output SPEC, e.g. dummy:ready=true (repeatable)")->allow_extra_args(false);
  run->add_option("--menu", arguments->menu, "Menu file (TOML) describing source, modules, paths, outputs")
      ->check(CLI::ExistingFile);
  addPluginLibraryOption(*run, arguments->pluginLibraries);
  run->add_option("--report", arguments->report, "Write the run report as JSON to FILE");
  run->add_option("--trace", arguments->trace, "Write every call as a Chrome trace (Perfetto) to FILE");
  run->add_option("--html", arguments->html,
                  "Write the HTML report (figures, modules, the trace for Perfetto; `lanes report`) to FILE");
  run->add_option("--summary", arguments->summary,
                  "short (default): the module table and the path report folded to about a screen; full: every "
                  "module and path")
      ->check(CLI::IsMember({"short", "full"}));
  run->add_option("--monitor-sample", arguments->monitorSample,
                  "Time one event in N of each lane exactly and count every call (default 1: every event); the report "
                  "then scales its times from the timed calls, as estimates")
      ->check(positiveCount);
  run->add_option("--on-error", arguments->onError, "stop: end the job at the first failure; skip: drop failed events")
      ->check(CLI::IsMember({"stop", "skip"}));
  run->add_option("--pin", arguments->pin,
                  "Bind each thread to its own PU: numa-compact, numa-spread, smt-shared, random[:SEED] or none "
                  "(see `lanes pin --help`)");
  run->add_option("-p,--processes", arguments->processes,
                  "Multi-process mode: initialise once, then fork P workers that share memory copy-on-write, "
                  "each with -t threads and -l lanes; their outputs are merged")
      ->check(positiveCount);
  run->add_option("--distribution", arguments->distribution,
                  "How workers share events: queue (chunks as they become free) or round-robin (worker r: r, r+P, ...); "
                  "MPI ranks: mpi-queue (the default), block or round-robin")
      ->check(CLI::IsMember({"queue", "round-robin", "mpi-queue", "block"}));
  run->add_option_function<std::string>(
         "--chunk",
         [arguments](std::string const& text) {
           arguments->chunkByFile = text == "file";
           if (!arguments->chunkByFile) arguments->chunk = std::stoull(text);
         },
         "Events a worker or MPI rank takes from the queue at a time (default: 10); MPI ranks: 'file' for whole "
         "input files of a source that reads several")
      ->check(chunkSize());
  run->add_option("--events-before-fork", arguments->eventsBeforeFork,
                  "Events the parent processes (one thread) before it forks; they are written too")
      ->check(anyCount);
  run->add_flag("--no-fork", arguments->noFork,
                "With --processes: run P independent jobs instead (the multi-job baseline for memory)");
  run->add_flag("--retry-lost", arguments->retryLost,
                "With --processes: a worker that crashes has its events processed by a new worker");
  run->add_option("--retry-limit", arguments->retryLimit,
                  "With --retry-lost: how many times the same events are retried before the job fails (default: 2)")
      ->check(CLI::PositiveNumber)
      ->needs("--retry-lost");
  run->add_option("--output-mode", arguments->outputMode,
                  "With --processes or MPI ranks: merge (each worker writes its part, merged at the end) or "
                  "shared-writer (workers ship batches through shared memory to the parent, ranks by MPI to rank 0, "
                  "which writes them as they come; root and parallel-root outputs)")
      ->check(CLI::IsMember({"merge", "shared-writer"}));
  run->add_option("--watchdog", arguments->watchdog,
                  "Name a module call or lane that makes no progress for SECONDS (default: off; 600 with "
                  "--processes; 0: off)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--watchdog-action", arguments->watchdogAction,
                  "What a hang also does: warn (default), stop (gracefully, then fail) or abort (at once, no output)")
      ->check(CLI::IsMember({"warn", "stop", "abort"}));
  run->add_flag("--mpi", arguments->mpi,
                "Run as one rank of an MPI job (implied when mpirun starts lanes): the ranks share the events, rank 0 "
                "merges the outputs and prints one report");
  run->add_option("--worker-role", arguments->workerRole)->group("");  // lanes' own, for --no-fork
  for (auto const* name :
       {"--events-before-fork", "--no-fork", "--retry-lost"}) {
    run->get_option(name)->needs("--processes");
  }
  addAccelOptions(*run);
  run->footer(
      "SPEC is name:key=value,key=value. Repeat a key for a list (file=a.root,file=b.root); any other key once.\n"
      "A value that holds a comma goes in double quotes, which the shell must pass on:\n"
      "  --output 'root:file=\"a,b.root\"' (in them \\\" is a quote and \\\\ a backslash; an '=' needs none).\n"
      "`lanes plugins` lists the sources, modules, waiters and outputs with their options.\n\n"
      "Examples:\n"
      "  lanes run -t 4 -l 8 -n 2000 --report report.json\n"
      "  lanes run -n 0 --source root:file=in.root --output root:file=copy.root\n"
      "  lanes run --menu examples/reconstruction.toml -t 2 --trace trace.json --progress 10\n"
      "  lanes run -n 0 --endless --source synthetic:size.a=100 --waiter busy   (until Ctrl-C)\n"
      "  lanes run --processes 4 -t 2 --source root:file=in.root --output root:file=out.root\n\n"
      "Exit status: 0 the job succeeded; 1 it failed while running (the error names module, event and file);\n"
      "2 bad input, found before any event (an unknown plugin or option, a number out of range, a broken\n"
      "menu, an output over an input, a setting a module refuses as the job begins); 128+N stopped by\n"
      "signal N. SIGINT (Ctrl-C), SIGTERM and SIGHUP stop gracefully: the events in flight finish, the\n"
      "outputs close valid, the report is written; a second signal ends the process at once. A crash\n"
      "(SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) first names the module, transition, event, lane and thread\n"
      "in one line, then gives the thread's stack trace (LANES_NO_STACKTRACE=1: none), and ends with the\n"
      "signal's own status. What other code writes to stderr (ROOT's decompressors) is kept out of the\n"
      "way: the error quotes it, or a warning counts it (the report's stray_output).");
  run->callback([arguments, &exitCode] { exitCode = runJob(*arguments); });
}

}  // namespace lanes::cli
