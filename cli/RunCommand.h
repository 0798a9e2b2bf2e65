#pragma once
// `lanes run`: builds a job from the command line (and optionally a menu),
// runs it with the monitor attached, prints the report.

#include <CLI/CLI.hpp>

#include "lanes/core/JobConfig.h"

namespace lanes::cli {

struct RunArguments {
  unsigned threads = 0;  // 0: as many as the machine has
  unsigned lanes = 0;    // 0: as many as threads
  std::uint64_t events = 1000;
  bool eventsGiven = false;
  std::string source;
  bool sourceGiven = false;  // --source "" is an error, not the default job
  bool endless = false;      // -n 0 on a source that never ends: run until a signal stops the job
  double progress = 0;       // --progress SECONDS: a heartbeat line every SECONDS; 0: the live line on a terminal
  bool progressJson = false;  // --progress-json: JSON lines instead (every --progress SECONDS, default 0.5)
  std::vector<std::string> waiters;
  std::vector<std::string> modules;
  std::vector<std::string> outputs;
  std::string menu;
  std::vector<std::string> pluginLibraries;  // --plugin-library (PluginLibraries.h)
  std::string report;
  std::string trace;
  std::string html;  // --html FILE: the HTML report of the job (lanes.tools.report)
  std::string summary = "short";  // --summary short|full: how much of the report is printed
  std::string onError = "stop";
  unsigned monitorSample = 1;  // --monitor-sample N: time one event in N per lane (JobConfig::timingSample)
  unsigned concurrentLumis = 0;  // --concurrent-lumis N; 0: the menu's, else JobConfig's default
  unsigned concurrentRuns = 0;   // --concurrent-runs N; likewise
  std::vector<std::string> conditions;  // --conditions SPEC (ConditionsOptions.h)
  // Multi-process mode (node/MultiProcessJob.h); processes == 0: one process.
  unsigned processes = 0;
  std::string distribution;  // empty: queue (mpi-queue in an MPI job)
  std::uint64_t chunk = 0;   // 0: not given (10)
  bool chunkByFile = false;  // --chunk file: MPI ranks take whole input files
  std::uint64_t eventsBeforeFork = 0;
  bool noFork = false;
  bool retryLost = false;
  unsigned retryLimit = 2;
  std::string outputMode;    // empty: not given (merge)
  bool mpi = false;  // --mpi (else detected: node/MpiJob.h)
  std::string workerRole;  // set by the parent for the jobs it starts with exec
  std::string pin;  // a pinning strategy; empty: threads not pinned
  double watchdog = -1;         // seconds; < 0: the default (off, 600 s in a multi-process job); 0: off
  std::string watchdogAction;   // empty: not given (warn)
};

// The job the arguments describe; the built-in default job when they name no
// source, module, waiter, output or menu. Throws lanes::Exception on bad input.
JobConfig makeJob(RunArguments const& arguments);

// Adds the `run` subcommand; `exitCode` receives the job's exit status.
void addRunCommand(CLI::App& app, int& exitCode);

}  // namespace lanes::cli
