#pragma once
// The run report: every figure of a job in one value, written as JSON for the
// tools and printed as a short table for people. The table prints nothing
// that cannot be re-derived from the JSON.
//
// JSON keys (snake_case, with units): threads, lanes, events, events_skipped,
// wall_s, events_per_s, cpu_user_s, cpu_sys_s, cpu_efficiency,
// peak_rss_bytes, modules [{label, plugin, kind, concurrency, calls,
// total_s}], source_s, outputs_s, failed, error, stop_requested,
// versions {lanes, tbb, compiler}, source (Source::details(), when the source
// has any: skipped_files [{file, error}]), and any of `sections` (see there).

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/EventProcessor.h"
#include "lanes/monitor/ModuleStatistics.h"
#include "lanes/monitor/ResourceUsage.h"

namespace lanes {

// Immutable value type: one module's line of the report.
struct ModuleReport {
  std::string label;
  std::string plugin;
  std::string kind;         // toString(ModuleKind)
  std::string concurrency;  // toString(Concurrency)
  std::uint64_t calls = 0;  // acquire and event calls
  double totalSeconds = 0;
  nlohmann::json details;  // Module::details(), parsed; null when it had none
};

// Immutable value type: what the job was built with and runs on.
struct VersionReport {
  std::string lanes;
  std::string tbb;  // the runtime's version, and the headers' it was built with
  std::string compiler;

  static VersionReport current();
};

// Immutable value type.
struct RunReport {
  unsigned threads = 0;
  unsigned lanes = 0;
  std::uint64_t events = 0;         // finished without error
  std::uint64_t eventsSkipped = 0;  // failed under --on-error skip
  double wallSeconds = 0;
  double eventsPerSecond = 0;       // events / wallSeconds
  double cpuUserSeconds = 0;
  double cpuSystemSeconds = 0;
  double cpuEfficiency = 0;         // (user + system) / (threads * wall)
  std::uint64_t peakRssBytes = 0;
  std::vector<ModuleReport> modules;  // in job order
  double sourceSeconds = 0;
  double outputsSeconds = 0;
  bool failed = false;
  std::string error;
  bool stopRequested = false;
  VersionReport versions;
  nlohmann::json source;  // Source::details(), parsed; null when it had none
  // What layers above the monitor add about the job, each a top-level key of
  // the JSON (node's `pinning`: {strategy, pus, threads_pinned}); toJson()'s
  // own keys win over a section of the same name.
  nlohmann::json::object_t sections;

  // `usage` is the job's share of the process's resources, e.g.
  // ResourceUsage::sample().since(before).
  static RunReport build(JobInfo const& job, ModuleStatistics const& statistics, RunSummary const& summary,
                         Clock::duration wall, ResourceUsage const& usage,
                         std::vector<std::string> const& moduleDetails = {}, std::string const& sourceDetails = {});

  nlohmann::json toJson() const;

  // Writes toJson() to `path` (through `path + ".tmp"`, renamed when
  // complete). Throws lanes::Exception naming the file if it cannot.
  void writeJson(std::string const& path) const;

  // Headline figures, then the modules and the source by total time, each
  // with its share of the time of all of them; the `maxRows` longest are
  // listed and one row sums up the rest.
  void printTable(std::ostream& out, std::size_t maxRows = 15) const;
};

// One line per file that the source skipped (`source`: a report's "source").
void printSkippedFiles(nlohmann::json const& source, std::ostream& out);

}  // namespace lanes
