#include "lanes/monitor/ReportMerge.h"

#include <algorithm>
#include <string>
#include <utility>

#include "lanes/monitor/LogHistogram.h"

namespace lanes {

namespace {

double secondsOf(nlohmann::json const& json, char const* key) {
  return json.is_object() ? json.value(key, 0.0) : 0.0;
}

// Adds `from`'s counts to `into`'s (visited, accepted, rejected, failed).
void addCounts(nlohmann::json& into, nlohmann::json const& from) {
  for (auto const* key : {"visited", "accepted", "rejected", "failed"}) {
    into[key] = into.value(key, std::uint64_t{0}) + from.value(key, std::uint64_t{0});
  }
}

// The entry of `array` whose `key` is `name`, appended (with `seed`'s
// identity but no counts) when there is none.
nlohmann::json& entryNamed(nlohmann::json& array, char const* key, nlohmann::json const& seed) {
  auto const name = seed.value(key, std::string());
  for (auto& entry : array) {
    if (entry[key] == name) return entry;
  }
  array.push_back({{key, name}});
  return array.back();
}

void mergeModules(RunReport& merged, nlohmann::json const& modules) {
  for (auto const& module : modules) {
    auto const label = module.value("label", std::string());
    auto const named = [&](ModuleReport const& m) { return m.label == label; };
    auto it = std::find_if(merged.modules.begin(), merged.modules.end(), named);
    if (it == merged.modules.end()) {
      ModuleReport added;
      added.label = label;
      added.plugin = module.value("plugin", std::string());
      added.kind = module.value("kind", std::string());
      added.concurrency = module.value("concurrency", std::string());
      it = merged.modules.insert(merged.modules.end(), std::move(added));
    }
    it->calls += module.value("calls", std::uint64_t{0});
    it->events += module.value("events", std::uint64_t{0});
    it->totalSeconds += module.value("total_s", 0.0);
    it->stallSeconds += module.value("stall_s", 0.0);
    it->externalSeconds += module.value("external_s", 0.0);
    it->conditionsSeconds += module.value("conditions_s", 0.0);
    auto const transitions = module.value("transitions", nlohmann::json());
    if (!transitions.is_object()) continue;
    if (it->transitions.is_null()) it->transitions = nlohmann::json::object();
    for (auto const& [name, totals] : transitions.items()) {
      auto& into = it->transitions[name];
      if (into.is_null()) into = nlohmann::json::object();  // the first part with it
      into["calls"] = into.value("calls", std::uint64_t{0}) + totals.value("calls", std::uint64_t{0});
      into["total_s"] = into.value("total_s", 0.0) + totals.value("total_s", 0.0);
      it->transitionsSeconds += totals.value("total_s", 0.0);
    }
  }
}

// Entries summed over the parts (a lumi that two processes shared counts in
// both); the slots in flight are every part's.
// Each record's loads and waits, summed over the parts.
void mergeConditions(std::vector<ConditionsSummary>& merged, nlohmann::json const& records) {
  if (!records.is_array()) return;
  for (auto const& record : records) {
    auto const name = record.value("record", std::string());
    auto it = std::find_if(merged.begin(), merged.end(), [&](auto const& r) { return r.record == name; });
    if (it == merged.end()) it = merged.insert(merged.end(), {name, record.value("concurrent_iovs", 1u)});
    it->loads += record.value("loads", std::uint64_t{0});
    it->loadSeconds += record.value("load_s", 0.0);
    it->deferredBegins += record.value("deferred_begins", std::uint64_t{0});
    it->deferredSeconds += record.value("deferred_s", 0.0);
  }
}

void mergeBlocks(BlockReport& merged, nlohmann::json const& blocks, bool first) {
  if (!blocks.is_object()) return;
  merged.tracked = merged.tracked || blocks.value("tracked", false);
  merged.runs += blocks.value("runs", std::uint64_t{0});
  merged.lumis += blocks.value("lumis", std::uint64_t{0});
  merged.repeatedRuns += blocks.value("repeated_runs", std::uint64_t{0});
  merged.repeatedLumis += blocks.value("repeated_lumis", std::uint64_t{0});
  merged.emptyLumis += blocks.value("empty_lumis", std::uint64_t{0});
  if (!first) return;
  merged.concurrentRuns = blocks.value("concurrent_runs", 1u);
  merged.concurrentLumis = blocks.value("concurrent_lumis", 1u);
  merged.runsSerialisedBy = blocks.value("runs_serialised_by", std::vector<std::string>());
  merged.lumisSerialisedBy = blocks.value("lumis_serialised_by", std::vector<std::string>());
}

void mergePaths(nlohmann::json& merged, nlohmann::json const& paths) {
  for (auto const& path : paths) {
    auto& into = entryNamed(merged, "name", path);
    addCounts(into, path);
    if (!into.contains("modules")) into["modules"] = nlohmann::json::array();
    for (auto const& module : path.value("modules", nlohmann::json::array())) {
      addCounts(entryNamed(into["modules"], "label", module), module);
    }
  }
}

void mergeThreadTime(ThreadTime& merged, nlohmann::json const& time) {
  merged.totalSeconds += secondsOf(time, "total_s");
  merged.modulesSeconds += secondsOf(time, "modules_s");
  merged.sourceSeconds += secondsOf(time, "source_s");
  merged.outputsSeconds += secondsOf(time, "outputs_s");
  merged.transitionsSeconds += secondsOf(time, "transitions_s");
  merged.overheadSeconds += secondsOf(time, "overhead_s");
  merged.boundarySeconds += secondsOf(time, "boundary_s");
  merged.idleSeconds += secondsOf(time, "idle_s");
}

// Sums the parts' timed records and estimates; each part measured its own
// per-record costs, so the merged ones are their means weighted by the
// records, which keeps calls x ns_per_call + (waits + events) x ns_per_wait
// equal to the summed estimate.
class MonitorSums {
 public:
  void add(nlohmann::json const& monitor) {
    if (!monitor.is_object()) return;
    auto const calls = monitor.value("timed_calls", std::uint64_t{0});
    auto const waits = monitor.value("timed_waits", std::uint64_t{0});
    auto const events = monitor.value("timed_events", std::uint64_t{0});
    cost_.calls += calls;
    cost_.waits += waits;
    cost_.events += events;
    cost_.seconds += monitor.value("estimated_s", 0.0);
    // Every part of a job samples alike (one --monitor-sample for all).
    cost_.timingSample = std::max(cost_.timingSample, monitor.value("timing_sample", 1u));
    callNs_ += static_cast<double>(calls) * monitor.value("ns_per_call", 0.0);
    waitNs_ += static_cast<double>(waits + events) * monitor.value("ns_per_wait", 0.0);
  }

  MonitorCost total() const {
    auto cost = cost_;
    cost.nsPerCall = cost.calls > 0 ? callNs_ / static_cast<double>(cost.calls) : 0.0;
    auto const waits = cost.waits + cost.events;
    cost.nsPerWait = waits > 0 ? waitNs_ / static_cast<double>(waits) : 0.0;
    return cost;
  }

 private:
  MonitorCost cost_;
  double callNs_ = 0, waitNs_ = 0;
};

// The parts' event times: the percentiles from the summed histograms (never
// above the largest time, which is exact), the slowest events of them all.
nlohmann::json mergeEventTimes(std::vector<nlohmann::json const*> const& parts) {
  LogHistogram histogram;
  std::uint64_t events = 0;
  double longest = 0;
  std::vector<nlohmann::json> slowest;
  std::size_t named = 0;
  for (auto const* part : parts) {
    if (!part || !part->is_object()) continue;
    auto const times = part->value("event_times", nlohmann::json::object());
    if (!times.is_object()) continue;
    events += times.value("events", std::uint64_t{0});
    longest = std::max(longest, times.value("max_s", 0.0));
    if (times.contains("histogram")) histogram.merge(LogHistogram::fromJson(times["histogram"]));
    auto const listed = times.value("slowest", nlohmann::json::array());
    named = std::max(named, listed.size());
    slowest.insert(slowest.end(), listed.begin(), listed.end());
  }
  std::stable_sort(slowest.begin(), slowest.end(), [](auto const& a, auto const& b) { return a["s"] > b["s"]; });
  slowest.resize(std::min(slowest.size(), named));
  auto const at = [&](double fraction) { return std::min(histogram.percentile(fraction), longest); };
  return {{"events", events},    {"median_s", at(0.5)}, {"p90_s", at(0.9)},           {"p99_s", at(0.99)},
          {"max_s", longest},    {"slowest", slowest},  {"histogram", histogram.toJson()}};
}

}  // namespace

RunReport mergePartReports(std::vector<nlohmann::json const*> const& parts) {
  RunReport merged;
  auto paths = nlohmann::json::array();
  MonitorSums monitor;
  bool first = true;
  for (auto const* part : parts) {
    if (!part || !part->is_object()) continue;
    auto const& report = *part;
    mergeBlocks(merged.blocks, report.value("runs_and_lumis", nlohmann::json()), std::exchange(first, false));
    mergeConditions(merged.conditions, report.value("conditions", nlohmann::json()));
    for (auto const& wait : report.value("lane_boundary_s", nlohmann::json::array())) {
      merged.laneBoundarySeconds.push_back(wait.get<double>());
    }
    merged.threads += report.value("threads", 0u);
    merged.lanes += report.value("lanes", 0u);
    merged.events += report.value("events", std::uint64_t{0});
    merged.eventsSkipped += report.value("events_skipped", std::uint64_t{0});
    merged.runsStolen += report.value("runs_stolen", std::uint64_t{0});
    merged.cpuUserSeconds += report.value("cpu_user_s", 0.0);
    merged.cpuSystemSeconds += report.value("cpu_sys_s", 0.0);
    merged.peakRssBytes = std::max(merged.peakRssBytes, report.value("peak_rss_bytes", std::uint64_t{0}));
    mergeModules(merged, report.value("modules", nlohmann::json::array()));
    merged.sourceSeconds += report.value("source_s", 0.0);
    merged.outputsSeconds += report.value("outputs_s", 0.0);
    mergeThreadTime(merged.threadTime, report.value("thread_time", nlohmann::json()));
    merged.stallSeconds += report.value("stall_s", 0.0);
    for (auto const& idle : report.value("lane_idle_s", nlohmann::json::array())) {
      merged.laneIdleSeconds.push_back(idle.get<double>());
    }
    auto const pathReport = report.value("path_report", nlohmann::json::object());
    if (pathReport.is_object()) mergePaths(paths, pathReport.value("paths", nlohmann::json::array()));
    monitor.add(report.value("monitor", nlohmann::json()));
  }
  auto const cpu = merged.cpuUserSeconds + merged.cpuSystemSeconds;
  merged.cpuEfficiency = merged.threadTime.totalSeconds > 0 ? cpu / merged.threadTime.totalSeconds : 0.0;
  merged.monitor = monitor.total();
  merged.paths = paths;
  merged.eventTimes = mergeEventTimes(parts);
  return merged;
}

}  // namespace lanes
