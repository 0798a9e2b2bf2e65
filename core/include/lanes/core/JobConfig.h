#pragma once
// What a job is made of, as the command line and menu files describe it.
// Plain data: EventProcessor turns it into constructed, validated modules.

#include <cstdint>
#include <string>
#include <vector>

#include "lanes/core/Conditions.h"
#include "lanes/core/Options.h"

namespace lanes {

enum class ErrorPolicy {
  Stop,  // first failure drains the lanes, closes the outputs and fails the job
  Skip,  // a failed event is dropped and counted; the job goes on
};

struct ModuleSpec {
  std::string label;
  PluginSpec plugin;
};

struct PathSpec {
  std::string name;
  std::vector<std::string> modules;  // labels, run in order; a rejecting filter ends the path
};

struct OutputSpec {
  std::string label;
  PluginSpec plugin;
  std::vector<std::string> selectPaths;  // the event is written if any accepts; empty = all paths
};

struct JobConfig {
  PluginSpec source{"empty", {}};
  std::vector<ModuleSpec> modules;
  std::vector<PluginSpec> waiters;  // expanded per source product where the plugin says so
  std::vector<PathSpec> paths;
  std::vector<OutputSpec> outputs;

  unsigned threads = 1;
  unsigned lanes = 0;             // 0: as many as threads
  std::uint64_t maxEvents = 0;    // 0: until the source ends
  bool endless = false;           // allows maxEvents 0 on a source that never ends (only a stop ends the job)
  ErrorPolicy onError = ErrorPolicy::Stop;
  // While someone observes: each lane times one event in this many exactly
  // and counts every call of the others without reading the clock (at least 1;
  // 1: every event timed). See ProcessingObserver on what untimed events report.
  unsigned timingSample = 1;
  // Lumis (runs) in flight at once, at least 1: with 1, every event of a
  // lumi finishes before the next lumi begins (Lumi.h). A `one` module that
  // watches lumis (runs) holds the job to 1.
  unsigned concurrentLumis = kDefaultConcurrentLumis;
  unsigned concurrentRuns = kDefaultConcurrentRuns;
  // The conditions service's records (Conditions.h).
  std::vector<ConditionsRecordSpec> conditions;

  static constexpr unsigned kDefaultConcurrentLumis = 2;
  static constexpr unsigned kDefaultConcurrentRuns = 1;
};

}  // namespace lanes
