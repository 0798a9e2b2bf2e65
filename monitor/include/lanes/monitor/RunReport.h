#pragma once
// The run report: every figure of a job in one value, written as JSON for the
// tools and printed as a short table for people. The table prints nothing
// that cannot be re-derived from the JSON.
//
// JSON keys (snake_case, with units): threads, lanes, events, events_skipped,
// runs_stolen, wall_s, events_per_s, cpu_user_s, cpu_sys_s, cpu_efficiency,
// peak_rss_bytes, modules [{label, plugin, kind, concurrency, calls, events,
// total_s, stall_s, external_s, conditions_s, transitions {beginLumi: {calls, total_s},
// ...: those it had}}], source_s, outputs_s, thread_time {total_s, modules_s,
// source_s, outputs_s, transitions_s, overhead_s, boundary_s, idle_s},
// stall_s, lane_idle_s [by lane], lane_boundary_s [by lane: the part of its
// idle time spent at run and lumi boundaries], runs_and_lumis (BlockReport),
// conditions [{record, concurrent_iovs, loads, load_s, deferred_begins,
// deferred_s}: what each record of the conditions service did],
// path_report {paths, outputs [{label, events}]}, event_times,
// memory, activity (MemorySampler's), monitor {timed_calls, timed_waits,
// timed_events, ns_per_call, ns_per_wait, estimated_s, thread_time_share,
// timing_sample} (MonitorCost: timing_sample above 1 makes every time above
// an estimate), failed, error, stop_requested, provenance (Provenance.h),
// source (Source::details(), when the source has any: skipped_files
// [{file, error}], skipped_fields or skipped_branches [{name, why}]), schedule
// (how the scheduler drove the job: scheduleJson()), call_times
// (ModuleStatistics::callTimesJson()), and any of `sections` (see there).

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/EventProcessor.h"
#include "lanes/monitor/ModuleStatistics.h"
#include "lanes/monitor/MonitorCost.h"
#include "lanes/monitor/Provenance.h"
#include "lanes/monitor/ResourceUsage.h"

namespace lanes {

// Immutable value type: one module's line of the report.
struct ModuleReport {
  std::string label;
  std::string plugin;
  std::string kind;         // toString(ModuleKind)
  std::string concurrency;  // toString(Concurrency)
  std::uint64_t calls = 0;  // acquire and event calls
  std::uint64_t events = 0;  // event calls (an output's: the events it wrote)
  double totalSeconds = 0;   // its calls, productReady ones included
  double stallSeconds = 0;   // runnable, waiting for its queue (`one`/`limited`)
  double externalSeconds = 0;  // waiting for its external work to complete
  double conditionsSeconds = 0;  // waiting for conditions payloads to load
  nlohmann::json details;  // Module::details(), parsed; null when it had none
  // Its run and lumi transitions: {"beginLumi": {"calls": N, "total_s": S}, ...}, those it had; null if none.
  nlohmann::json transitions = nullptr;
  double transitionsSeconds = 0;  // summed
};

// Immutable value type: where the threads' time went. modules, source and
// outputs are the calls' own times; overhead is the CPU time spent outside
// them (scheduling, oneTBB's spinning); idle the rest. They add up to total
// (threads x wall) unless calls outlast it (calls on threads outside the job's,
// such as external work's), when overhead and idle are 0.
struct ThreadTime {
  double totalSeconds = 0;
  double modulesSeconds = 0;  // modules but outputs
  double sourceSeconds = 0;
  double outputsSeconds = 0;
  double transitionsSeconds = 0;  // the modules' run and lumi transitions
  double overheadSeconds = 0;
  double boundarySeconds = 0;  // idle because the lanes waited at run and lumi boundaries
  double idleSeconds = 0;
};

// Immutable value type: the runs and lumis the job went through
// (RunSummary), and how many it held in flight (JobInfo).
struct BlockReport {
  bool tracked = false;  // a job where nothing watches runs and lumis does not count them
  std::uint64_t runs = 0;
  std::uint64_t lumis = 0;
  std::uint64_t repeatedRuns = 0;
  std::uint64_t repeatedLumis = 0;
  std::uint64_t emptyLumis = 0;
  unsigned concurrentRuns = 1;
  unsigned concurrentLumis = 1;
  std::vector<std::string> runsSerialisedBy;
  std::vector<std::string> lumisSerialisedBy;
  nlohmann::json timeline = nullptr;  // BlockTimeline's, where the job timed its lumis
  nlohmann::json toJson() const;
};

// The report's "conditions": what each record of the job's conditions service did.
nlohmann::json conditionsJson(std::vector<ConditionsSummary> const& records);

// Immutable value type: how much of the summary is printed. The module table
// lists the `modules` longest and one row sums up the rest; the path report
// the `paths` that rejected or failed most events, then the busiest, and one
// row counts the rest.
struct SummaryRows {
  std::size_t modules = 15;
  std::size_t paths = 15;

  static SummaryRows all();  // `lanes run --summary full`
};

// Immutable value type.
struct RunReport {
  unsigned threads = 0;
  unsigned lanes = 0;
  std::uint64_t events = 0;         // finished without error
  std::uint64_t eventsSkipped = 0;  // failed under --on-error skip
  std::uint64_t runsStolen = 0;     // RunSummary::runsStolen
  double wallSeconds = 0;
  double eventsPerSecond = 0;       // events / wallSeconds
  double cpuUserSeconds = 0;
  double cpuSystemSeconds = 0;
  double cpuEfficiency = 0;         // (user + system) / (threads * wall)
  std::uint64_t peakRssBytes = 0;
  std::vector<ModuleReport> modules;  // in job order
  double sourceSeconds = 0;
  double outputsSeconds = 0;
  ThreadTime threadTime;
  double stallSeconds = 0;            // the modules' stalls, summed
  std::vector<double> laneIdleSeconds;  // by lane: without an event, waiting for the source (or at a boundary)
  std::vector<double> laneBoundarySeconds;  // by lane: waiting for a lumi (or run) to begin, or a slot for one
  BlockReport blocks;
  std::vector<ConditionsSummary> conditions;
  // What other observers gathered (PathStatistics, EventStatistics,
  // MemorySampler's toJson() and activityJson()); null when not gathered.
  nlohmann::json paths;
  nlohmann::json eventTimes;
  nlohmann::json memory;
  nlohmann::json activity;
  MonitorCost monitor;  // what timing the job cost, estimated
  bool failed = false;
  std::string error;
  bool stopRequested = false;
  // Provenance::current() as the report is built; the command line puts the
  // job's in its place (taken as it started, with the command and the menu).
  Provenance provenance;
  nlohmann::json source;  // Source::details(), parsed; null when it had none
  // What `lanes model` replays: the job's schedule and its calls' distributions.
  nlohmann::json schedule;
  nlohmann::json callTimes;
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

  // Writes toJson() to `path` (through a temporary name, renamed when
  // complete: writeAtomically()). Throws lanes::Exception naming the file if it cannot.
  void writeJson(std::string const& path) const;

  // Headline figures, then the modules and the source by total time, each
  // with its share of the time of all of them, and the path report; each
  // folded to `rows` (and then a line saying how to see them all).
  void printTable(std::ostream& out, SummaryRows rows = {}) const;
  // Its stall analysis alone: the thread time, stalls, event times, the
  // module table and the path report (a multi-process job's merged figures).
  void printAnalysis(std::ostream& out, SummaryRows rows = {}) const;
};

// The schedule a job ran under, from its JobInfo: {source: {replicated,
// reads}, modules: [{limit (a limited module's), external_work,
// product_ready (each present when true), after (the
// producer modules it waits for, in the order the scheduler ensures them),
// source ([first, count] runs of the source products it consumes), and for
// an output that asks for productReady() announced (each producer's
// products it is told of; a source product's: 1)}] indexed like
// JobInfo::modules, each key left out when it would be empty, paths: [{name,
// modules}], outputs: [{module, select}]} (indices into modules and paths):
// compact where a job has a thousand modules.
nlohmann::json scheduleJson(JobInfo const& job);

// One line per file that the source skipped, and one naming the branches or
// fields it could not read and skipped (`source`: a report's "source").
void printSkippedInputs(nlohmann::json const& source, std::ostream& out);

// "812 bytes", "3.4 kB", "1.2 MB", "5.0 GB" (powers of 1000): a file's size.
std::string sizeText(std::uintmax_t bytes);

// An output's file as the summary tells it, from what its details say is
// on disk ("file", "committed", "events_written", "bytes", "replaced",
// "error"): "12 events written to out.root (1.2 MB)", "... (1.2 MB,
// replaced an earlier file)", or "nothing written (out.root was not
// created: CAUSE)". `how` follows the size ("merged from the workers' parts").
std::string fileWritten(nlohmann::json const& details, std::string const& how = "");

}  // namespace lanes
