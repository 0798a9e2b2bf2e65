#include "lanes/monitor/RunReport.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <iomanip>
#include <sstream>

#include "lanes/monitor/AtomicFile.h"

namespace lanes {

namespace {

double ratio(double numerator, double denominator) { return denominator > 0 ? numerator / denominator : 0.0; }

double seconds(Clock::duration time) { return std::chrono::duration<double>(time).count(); }

// A module's run and lumi transitions, those it had.
void addTransitions(ModuleReport& report, BlockTransitionTotals const& totals) {
  for (std::size_t k = 0; k < kBlockTransitionCount; ++k) {
    if (totals[k].calls == 0) continue;
    if (report.transitions.is_null()) report.transitions = nlohmann::json::object();
    report.transitions[toString(kBlockTransitions[k])] = {{"calls", totals[k].calls}, {"total_s", totals[k].seconds()}};
    report.transitionsSeconds += totals[k].seconds();
  }
}

std::vector<ModuleReport> moduleReports(JobInfo const& job, ModuleStatistics::Totals const& totals,
                                        std::vector<std::string> const& details) {
  std::vector<ModuleReport> reports;
  for (std::size_t i = 0; i < job.modules.size(); ++i) {
    auto const& module = job.modules[i];
    reports.push_back({module.label, module.plugin, toString(module.kind), toString(module.concurrency),
                       totals.modules[i].calls, totals.modules[i].events, totals.modules[i].seconds(),
                       totals.waits[i].stallSeconds(), totals.waits[i].externalSeconds(),
                       seconds(totals.waits[i].conditions), nullptr});
    if (i < details.size() && !details[i].empty()) reports.back().details = nlohmann::json::parse(details[i]);
    if (i < totals.transitions.size()) addTransitions(reports.back(), totals.transitions[i]);
  }
  return reports;
}


// One line per output that reports a file in its details (Module::details()).
void printFilesWritten(RunReport const& report, std::ostream& out) {
  for (auto const& module : report.modules) {
    auto const& details = module.details;
    if (!details.is_object() || !details.contains("file")) continue;
    out << "  " << module.label << ": " << fileWritten(details) << "\n";
  }
}

ThreadTime splitThreadTime(RunReport const& report) {
  ThreadTime time;
  time.totalSeconds = report.threads * report.wallSeconds;
  for (auto const& module : report.modules) {
    if (module.kind != toString(ModuleKind::Output)) time.modulesSeconds += module.totalSeconds;
    time.transitionsSeconds += module.transitionsSeconds;
  }
  time.sourceSeconds = report.sourceSeconds;
  time.outputsSeconds = report.outputsSeconds;
  auto const calls = time.modulesSeconds + time.sourceSeconds + time.outputsSeconds + time.transitionsSeconds;
  auto const cpu = report.cpuUserSeconds + report.cpuSystemSeconds;
  // Calls that sleep use no CPU: the threads were busy for the larger of the two.
  auto const idle = std::max(0.0, time.totalSeconds - std::max(calls, cpu));
  time.overheadSeconds = std::max(0.0, time.totalSeconds - calls - idle);
  // A lane that waits at a boundary leaves a thread idle where there are no
  // more lanes than threads; with more, a thread may have another lane's work.
  double laneBoundary = 0;
  for (auto const wait : report.laneBoundarySeconds) laneBoundary += wait;
  auto const threadsPerLane = std::min(1.0, ratio(report.threads, report.lanes));
  time.boundarySeconds = std::min(idle, laneBoundary * threadsPerLane);
  time.idleSeconds = idle - time.boundarySeconds;
  return time;
}

// The events whose end was timed: all of them, or in a sampled job as many as
// the source's timed calls tell.
std::uint64_t timedEvents(RunReport const& report, ModuleStatistics::Totals const& totals) {
  auto const events = report.events + report.eventsSkipped;
  auto const& source = totals.source;
  if (totals.timingSample == 1 || source.calls == 0) return events;
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(events) * static_cast<double>(source.timed) /
                                                 static_cast<double>(source.calls)));
}

}  // namespace

SummaryRows SummaryRows::all() {
  auto const every = std::numeric_limits<std::size_t>::max();
  return {every, every};
}

RunReport RunReport::build(JobInfo const& job, ModuleStatistics const& statistics, RunSummary const& summary,
                           Clock::duration wall, ResourceUsage const& usage,
                           std::vector<std::string> const& moduleDetails, std::string const& sourceDetails) {
  auto const totals = statistics.totals();
  RunReport report;
  report.threads = job.threads;
  report.lanes = job.lanes;
  report.events = summary.eventsProcessed;
  report.eventsSkipped = summary.eventsSkipped;
  report.runsStolen = summary.runsStolen;
  report.wallSeconds = std::chrono::duration<double>(wall).count();
  report.eventsPerSecond = ratio(static_cast<double>(report.events), report.wallSeconds);
  report.cpuUserSeconds = usage.cpuUserSeconds;
  report.cpuSystemSeconds = usage.cpuSystemSeconds;
  report.cpuEfficiency = ratio(usage.cpuUserSeconds + usage.cpuSystemSeconds, job.threads * report.wallSeconds);
  report.peakRssBytes = usage.peakRssBytes;
  report.modules = moduleReports(job, totals, moduleDetails);
  report.sourceSeconds = totals.source.seconds();
  report.outputsSeconds = totals.outputs.seconds();
  for (auto const wait : totals.laneBoundary) report.laneBoundarySeconds.push_back(seconds(wait));
  report.threadTime = splitThreadTime(report);
  report.blocks = {job.lumisTracked,   summary.runs,       summary.lumis,          summary.repeatedRuns,
                   summary.repeatedLumis, summary.emptyLumis, job.concurrentRuns,     job.concurrentLumis,
                   job.runsSerialisedBy,  job.lumisSerialisedBy};
  report.conditions = summary.conditions;
  for (auto const& module : report.modules) report.stallSeconds += module.stallSeconds;
  for (auto const idle : totals.laneIdle) report.laneIdleSeconds.push_back(std::chrono::duration<double>(idle).count());
  report.monitor = MonitorCost::estimate(totals.timedCalls, totals.timedWaits, timedEvents(report, totals));
  report.monitor.timingSample = totals.timingSample;
  report.failed = summary.failed;
  report.error = summary.error;
  report.stopRequested = summary.stopRequested;
  report.provenance = Provenance::current();
  if (!sourceDetails.empty()) report.source = nlohmann::json::parse(sourceDetails);
  report.schedule = scheduleJson(job);
  report.callTimes = statistics.callTimesJson();
  return report;
}

namespace {
// Whether `product` is the one after the last of `runs` ([first, count] runs of source products).
bool continuesTheRun(nlohmann::json const& runs, ProductIndex product) {
  return !runs.empty() && runs.back()[0].get<ProductIndex>() + runs.back()[1].get<ProductIndex>() == product;
}
}  // namespace

nlohmann::json scheduleJson(JobInfo const& job) {
  auto modules = nlohmann::json::array();
  for (auto const& module : job.modules) {
    auto after = nlohmann::json::array(), announced = nlohmann::json::array(), source = nlohmann::json::array();
    for (auto const& prerequisite : module.prerequisites) {
      if (prerequisite.producer != kSourceProducer) {
        after.push_back(prerequisite.producer);
        announced.push_back(prerequisite.products);
      } else if (continuesTheRun(source, prerequisite.product)) {
        source.back()[1] = source.back()[1].get<unsigned>() + 1;
      } else {
        source.push_back({prerequisite.product, 1});
      }
    }
    // Only what is not the default: a report of a thousand waiters stays small.
    auto entry = nlohmann::json::object();
    if (module.concurrency == Concurrency::Limited) entry["limit"] = module.concurrencyLimit;
    if (module.externalWork) entry["external_work"] = true;
    if (module.productReady) entry["product_ready"] = true;
    if (!after.empty()) entry["after"] = std::move(after);
    if (!source.empty()) entry["source"] = std::move(source);
    if (module.productReady && !announced.empty()) entry["announced"] = std::move(announced);
    modules.push_back(std::move(entry));
  }
  auto paths = nlohmann::json::array();
  for (auto const& path : job.paths) paths.push_back({{"name", path.name}, {"modules", path.modules}});
  auto outputs = nlohmann::json::array();
  for (auto const& output : job.outputs) outputs.push_back({{"module", output.module}, {"select", output.selectPaths}});
  return {{"source", {{"replicated", job.replicatedSource}, {"reads", toString(job.sourceReads)}}},
          {"modules", std::move(modules)},
          {"paths", std::move(paths)},
          {"outputs", std::move(outputs)}};
}

nlohmann::json RunReport::toJson() const {
  auto modulesJson = nlohmann::json::array();
  for (auto const& module : modules) {
    modulesJson.push_back({{"label", module.label},
                           {"plugin", module.plugin},
                           {"kind", module.kind},
                           {"concurrency", module.concurrency},
                           {"calls", module.calls},
                           {"events", module.events},
                           {"total_s", module.totalSeconds},
                           {"stall_s", module.stallSeconds},
                           {"external_s", module.externalSeconds},
                           {"conditions_s", module.conditionsSeconds}});
    if (!module.details.is_null()) modulesJson.back()["details"] = module.details;
    if (!module.transitions.is_null()) modulesJson.back()["transitions"] = module.transitions;
  }
  auto outputs = nlohmann::json::array();
  for (auto const& module : modules) {
    if (module.kind == toString(ModuleKind::Output)) outputs.push_back({{"label", module.label}, {"events", module.events}});
  }
  nlohmann::json json = sections;
  json.update(nlohmann::json{{"threads", threads},
                             {"lanes", lanes},
                             {"events", events},
                             {"events_skipped", eventsSkipped},
                             {"runs_stolen", runsStolen},
                             {"wall_s", wallSeconds},
                             {"events_per_s", eventsPerSecond},
                             {"cpu_user_s", cpuUserSeconds},
                             {"cpu_sys_s", cpuSystemSeconds},
                             {"cpu_efficiency", cpuEfficiency},
                             {"peak_rss_bytes", peakRssBytes},
                             {"modules", modulesJson},
                             {"source_s", sourceSeconds},
                             {"outputs_s", outputsSeconds},
                             {"thread_time",
                              {{"total_s", threadTime.totalSeconds},
                               {"modules_s", threadTime.modulesSeconds},
                               {"source_s", threadTime.sourceSeconds},
                               {"outputs_s", threadTime.outputsSeconds},
                               {"transitions_s", threadTime.transitionsSeconds},
                               {"overhead_s", threadTime.overheadSeconds},
                               {"boundary_s", threadTime.boundarySeconds},
                               {"idle_s", threadTime.idleSeconds}}},
                             {"stall_s", stallSeconds},
                             {"lane_idle_s", laneIdleSeconds},
                             {"lane_boundary_s", laneBoundarySeconds},
                             {"runs_and_lumis", blocks.toJson()},
                             {"conditions", conditionsJson(conditions)},
                             {"path_report", {{"paths", paths.is_null() ? nlohmann::json::array() : paths}, {"outputs", outputs}}},
                             {"event_times", eventTimes},
                             {"memory", memory},
                             {"activity", activity},
                             {"monitor", monitor.toJson(threadTime.totalSeconds)},
                             {"failed", failed},
                             {"error", error},
                             {"stop_requested", stopRequested},
                             {"provenance", provenance.toJson()}});
  if (!source.is_null()) json["source"] = source;
  if (!schedule.is_null()) json["schedule"] = schedule;
  if (!callTimes.is_null()) json["call_times"] = callTimes;
  return json;
}

nlohmann::json conditionsJson(std::vector<ConditionsSummary> const& records) {
  auto json = nlohmann::json::array();
  for (auto const& record : records) {
    json.push_back({{"record", record.record},
                    {"concurrent_iovs", record.concurrentIovs},
                    {"loads", record.loads},
                    {"load_s", record.loadSeconds},
                    {"deferred_begins", record.deferredBegins},
                    {"deferred_s", record.deferredSeconds}});
  }
  return json;
}

nlohmann::json BlockReport::toJson() const {
  nlohmann::json json{{"tracked", tracked},
                      {"runs", runs},
          {"lumis", lumis},
          {"repeated_runs", repeatedRuns},
          {"repeated_lumis", repeatedLumis},
          {"empty_lumis", emptyLumis},
          {"concurrent_runs", concurrentRuns},
          {"concurrent_lumis", concurrentLumis},
          {"runs_serialised_by", runsSerialisedBy},
          {"lumis_serialised_by", lumisSerialisedBy}};
  if (!timeline.is_null()) json["timeline"] = timeline;
  return json;
}

void RunReport::writeJson(std::string const& path) const {
  auto const json = toJson();
  writeAtomically(path, [&](std::ostream& out) {
    out << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  });
}

namespace {

std::string fixed(double value, int decimals) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

std::string share(double part, double whole) { return fixed(100 * ratio(part, whole), 1) + "%"; }

// Stalls are named when they pass this share of the thread time.
constexpr double kStallShareNamed = 0.03;

// What the monitor's timing cost, when it timed anything (a merged report's
// is the sum of its parts').
void printMonitor(RunReport const& report, std::ostream& out) {
  auto const& monitor = report.monitor;
  if (monitor.calls + monitor.waits + monitor.events == 0) return;
  out << "  monitor ~" << fixed(monitor.seconds, 3) << " s (" << share(monitor.seconds, report.threadTime.totalSeconds)
      << " of thread time, estimated: " << monitor.calls << " timed calls x " << fixed(monitor.nsPerCall, 1) << " ns, "
      << monitor.waits + monitor.events << " waits and event ends x " << fixed(monitor.nsPerWait, 1) << " ns)\n";
  if (monitor.timingSample > 1) {
    out << "  timing sampled: one event in " << monitor.timingSample
        << " per lane timed; call counts exact, times estimated (timed sums x calls / timed calls), event times "
           "from the timed events\n";
  }
}

// Runs and lumis, where the job had more than one lumi or held them one at a time.
void printBlocks(RunReport const& report, std::ostream& out) {
  auto const& blocks = report.blocks;
  if (blocks.lumis <= 1 && blocks.lumisSerialisedBy.empty() && blocks.runsSerialisedBy.empty()) return;
  out << "  runs and lumis: " << blocks.runs << (blocks.runs == 1 ? " run, " : " runs, ") << blocks.lumis << " lumis";
  if (blocks.emptyLumis || blocks.repeatedLumis || blocks.repeatedRuns) {
    out << " (" << blocks.emptyLumis << " without events, " << blocks.repeatedLumis << " lumis and "
        << blocks.repeatedRuns << " runs seen before)";
  }
  out << ", at most " << blocks.concurrentLumis << " lumis and " << blocks.concurrentRuns << " runs in flight\n";
  auto const serialised = [&](char const* what, std::vector<std::string> const& by) {
    if (by.empty()) return;
    out << "  " << what << " one at a time: `one` module" << (by.size() > 1 ? "s " : " ");
    for (std::size_t i = 0; i < by.size(); ++i) out << (i ? ", " : "") << by[i];
    out << (by.size() > 1 ? " watch them" : " watches them") << " (see boundary wait)\n";
  };
  serialised("lumis", blocks.lumisSerialisedBy);
  serialised("runs", blocks.runsSerialisedBy);
}

void printThreadTime(RunReport const& report, std::ostream& out) {
  auto const& time = report.threadTime;
  auto const part = [&](char const* name, double seconds) {
    return std::string(name) + " " + fixed(seconds, 3) + " s (" + share(seconds, time.totalSeconds) + ")";
  };
  out << "  thread time " << fixed(time.totalSeconds, 3) << " s: " << part("modules", time.modulesSeconds) << ", "
      << part("source", time.sourceSeconds) << ", " << part("outputs", time.outputsSeconds) << ", ";
  if (time.transitionsSeconds > 0) out << part("transitions", time.transitionsSeconds) << ", ";
  out << part("overhead", time.overheadSeconds) << ", ";
  if (time.boundarySeconds > 0) out << part("boundary wait", time.boundarySeconds) << ", ";
  out << part("idle", time.idleSeconds) << "\n";
  printBlocks(report, out);
  printMonitor(report, out);
  if (report.stallSeconds <= kStallShareNamed * time.totalSeconds) return;
  auto const worst = std::max_element(report.modules.begin(), report.modules.end(), [](auto const& a, auto const& b) {
    return a.stallSeconds < b.stallSeconds;
  });
  out << "  stalls " << fixed(report.stallSeconds, 3) << " s (" << share(report.stallSeconds, time.totalSeconds)
      << " of thread time), most in " << worst->label << " (" << fixed(worst->stallSeconds, 3)
      << " s waiting for its queue)\n";
}

std::string milliseconds(nlohmann::json const& seconds) { return fixed(1e3 * seconds.get<double>(), 1) + " ms"; }

// Event wall times and memory over time, when gathered.
void printEventTimes(RunReport const& report, std::ostream& out) {
  auto const& times = report.eventTimes;
  if (times.is_object() && times.value("events", 0) > 0) {
    out << "  event time: median " << milliseconds(times["median_s"]) << ", 90% " << milliseconds(times["p90_s"])
        << ", 99% " << milliseconds(times["p99_s"]) << ", max " << milliseconds(times["max_s"]);
    if (!times["slowest"].empty()) out << " (event " << times["slowest"][0]["event"].get<std::string>() << ")";
    out << "\n";
  }
  auto const& memory = report.memory;
  if (memory.is_object() && !memory["samples"].empty()) {
    auto const& samples = memory["samples"];
    double most = 0;
    for (auto const& sample : samples) most = std::max(most, sample[1].get<double>());
    auto const mib = [](double bytes) { return fixed(bytes / (1 << 20), 1) + " MiB"; };
    out << "  RSS " << mib(samples.front()[1].get<double>()) << " at the start, " << mib(samples.back()[1].get<double>())
        << " at the end, " << mib(most) << " at most (" << samples.size() << " samples)\n";
  }
}

void printHeadline(RunReport const& report, std::ostream& out) {
  out << "lanes " << report.provenance.lanesVersion << ": " << report.events << " events";
  if (report.eventsSkipped > 0) out << " (+" << report.eventsSkipped << " skipped)";
  out << " in " << fixed(report.wallSeconds, 3) << " s = " << fixed(report.eventsPerSecond, 1) << " events/s  ["
      << report.threads << " threads, " << report.lanes << " lanes]\n";
  out << "  CPU " << fixed(report.cpuUserSeconds, 3) << " s user + " << fixed(report.cpuSystemSeconds, 3)
      << " s sys = " << fixed(100 * report.cpuEfficiency, 1) << "% of " << report.threads << " threads\n";
  out << "  peak RSS " << fixed(static_cast<double>(report.peakRssBytes) / (1 << 20), 1) << " MiB\n";
  out << "  time in source " << fixed(report.sourceSeconds, 3) << " s, in outputs " << fixed(report.outputsSeconds, 3)
      << " s\n";
  printThreadTime(report, out);
  printEventTimes(report, out);
  if (report.stopRequested) out << "  stopped early on request\n";
  if (report.failed) out << "  FAILED: " << report.error << "\n";
}

struct Row {
  std::string label, plugin, kind, concurrency, calls;
  double seconds;
  double stall = 0;
};

// The modules and the source, by total time, longest first; past `maxRows`,
// one row sums up the rest.
std::vector<Row> tableRows(RunReport const& report, std::size_t maxRows) {
  std::vector<Row> rows;
  for (auto const& module : report.modules) {
    rows.push_back({module.label, module.plugin, module.kind, module.concurrency, std::to_string(module.calls),
                    module.totalSeconds, module.stallSeconds});
  }
  rows.push_back({"(source)", "", "", "", "", report.sourceSeconds});
  std::stable_sort(rows.begin(), rows.end(), [](Row const& a, Row const& b) { return a.seconds > b.seconds; });
  if (rows.size() > maxRows) {
    Row rest{"(" + std::to_string(rows.size() - maxRows) + " more)", "", "", "", "", 0.0};
    for (auto it = rows.begin() + static_cast<std::ptrdiff_t>(maxRows); it != rows.end(); ++it) {
      rest.seconds += it->seconds;
      rest.stall += it->stall;
    }
    rows.resize(maxRows);
    rows.push_back(rest);
  }
  return rows;
}

void printModules(RunReport const& report, std::size_t maxRows, std::ostream& out) {
  auto const rows = tableRows(report, maxRows);
  std::size_t labelWidth = 8, pluginWidth = 6;
  double total = 0;
  for (auto const& row : rows) {
    labelWidth = std::max(labelWidth, row.label.size());
    pluginWidth = std::max(pluginWidth, row.plugin.size());
    total += row.seconds;
  }
  auto const line = [&](Row const& row, std::string const& seconds, std::string const& part, std::string const& stall) {
    out << "  " << std::left << std::setw(labelWidth) << row.label << "  " << std::setw(pluginWidth) << row.plugin
        << "  " << std::setw(8) << row.kind << "  " << std::setw(11) << row.concurrency << std::right << std::setw(10)
        << row.calls << std::setw(11) << seconds << std::setw(8) << part << std::setw(10) << stall << "\n";
  };
  line({"module", "plugin", "kind", "concurrency", "calls", 0}, "total s", "share", "stall s");
  for (auto const& row : rows) line(row, fixed(row.seconds, 3), share(row.seconds, total), fixed(row.stall, 3));
}

std::uint64_t count(nlohmann::json const& counts, char const* key) { return counts[key].get<std::uint64_t>(); }

std::uint64_t turnedAway(nlohmann::json const& path) { return count(path, "rejected") + count(path, "failed"); }

// The paths to print: all of them in the job's order, or, past `maxPaths`,
// those that rejected or failed most events, then the busiest.
std::vector<nlohmann::json const*> shownPaths(nlohmann::json const& paths, std::size_t maxPaths) {
  std::vector<nlohmann::json const*> shown;
  for (auto const& path : paths) shown.push_back(&path);
  if (shown.size() <= maxPaths) return shown;
  std::stable_sort(shown.begin(), shown.end(), [](auto const* a, auto const* b) {
    if (turnedAway(*a) != turnedAway(*b)) return turnedAway(*a) > turnedAway(*b);
    return count(*a, "visited") > count(*b, "visited");
  });
  shown.resize(maxPaths);
  return shown;
}

// The trigger report: per path and per module on it, events visited,
// accepted, rejected, failed; per output, events written. Folded, a path
// lists only the modules that rejected or failed events. Returns whether it
// folded.
bool printPaths(RunReport const& report, std::size_t maxPaths, std::ostream& out) {
  if (!report.paths.is_array() || report.paths.empty()) return false;
  bool const folded = report.paths.size() > maxPaths;
  auto const shown = shownPaths(report.paths, maxPaths);
  auto const listed = [folded](nlohmann::json const& module) { return !folded || turnedAway(module) > 0; };
  std::size_t width = 11;
  for (auto const* path : shown) {
    width = std::max(width, (*path)["name"].get<std::string>().size());
    for (auto const& module : (*path)["modules"]) {
      if (listed(module)) width = std::max(width, module["label"].get<std::string>().size() + 2);
    }
  }
  auto const line = [&](std::string const& name, nlohmann::json const& counts) {
    out << "  " << std::left << std::setw(width) << name << std::right;
    for (auto const* key : {"visited", "accepted", "rejected", "failed"}) out << std::setw(10) << count(counts, key);
    out << "\n";
  };
  out << "\n  " << std::left << std::setw(width) << "path/module" << std::right << std::setw(10) << "visited"
      << std::setw(10) << "accepted" << std::setw(10) << "rejected" << std::setw(10) << "failed" << "\n";
  for (auto const* path : shown) {
    line((*path)["name"].get<std::string>(), *path);
    for (auto const& module : (*path)["modules"]) {
      if (listed(module)) line("  " + module["label"].get<std::string>(), module);
    }
  }
  if (folded) {
    std::size_t turning = 0;
    for (auto const& path : report.paths) turning += turnedAway(path) > 0 ? 1 : 0;
    for (auto const* path : shown) turning -= turnedAway(*path) > 0 ? 1 : 0;
    out << "  (" << report.paths.size() - shown.size() << " more paths, "
        << (turning ? std::to_string(turning) + " of them rejecting or failing events)" : "none rejecting or failing an event)")
        << "\n";
  }
  for (auto const& module : report.modules) {
    if (module.kind == toString(ModuleKind::Output)) out << "  output " << module.label << ": " << module.events << " events written\n";
  }
  return folded;
}

// The module table and the path report, folded to `rows`; returns whether
// either was.
bool printTables(RunReport const& report, SummaryRows rows, std::ostream& out) {
  bool const modulesFolded = report.modules.size() + 1 > rows.modules;  // and the source's row
  printModules(report, rows.modules, out);
  bool const pathsFolded = printPaths(report, rows.paths, out);
  return modulesFolded || pathsFolded;
}

void printFoldedHint(bool folded, std::ostream& out) {
  if (folded) out << "  (folded: --summary full prints every module and path; --report FILE.json keeps them all)\n";
}

}  // namespace

void RunReport::printTable(std::ostream& out, SummaryRows rows) const {
  auto const flags = out.flags();
  printHeadline(*this, out);
  out << "\n";
  bool const folded = printTables(*this, rows, out);
  printFilesWritten(*this, out);
  printSkippedInputs(source, out);
  printFoldedHint(folded, out);
  out.flags(flags);
}

void RunReport::printAnalysis(std::ostream& out, SummaryRows rows) const {
  auto const flags = out.flags();
  printThreadTime(*this, out);
  printEventTimes(*this, out);
  out << "\n";
  printFoldedHint(printTables(*this, rows, out), out);
  out.flags(flags);
}

void printSkippedInputs(nlohmann::json const& source, std::ostream& out) {
  if (!source.is_object()) return;
  for (auto const& skipped : source.value("skipped_files", nlohmann::json::array())) {
    out << "  skipped " << skipped["file"].get<std::string>() << ": " << skipped["error"].get<std::string>() << "\n";
  }
  // The products the source could not read (unreadable=skip), the first few by name.
  constexpr std::size_t kNamed = 10;
  for (std::string const what : {"fields", "branches"}) {
    auto const skipped = source.value("skipped_" + what, nlohmann::json::array());
    if (skipped.empty()) continue;
    auto const noun = skipped.size() > 1 ? what : what.substr(0, what.size() - (what == "branches" ? 2 : 1));
    out << "  skipped " << skipped.size() << " " << noun << " that cannot be read here: ";
    for (std::size_t i = 0; i < skipped.size() && i < kNamed; ++i) {
      out << (i ? ", " : "") << skipped[i]["name"].get<std::string>();
    }
    if (skipped.size() > kNamed) out << " and " << skipped.size() - kNamed << " more";
    out << " (each with why: the report's source.skipped_" << what << ")\n";
  }
}

std::string sizeText(std::uintmax_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + " bytes";
  char const* const units[] = {"kB", "MB", "GB", "TB"};
  double size = static_cast<double>(bytes) / 1000;
  std::size_t unit = 0;
  for (; size >= 999.95 && unit + 1 < std::size(units); ++unit) size /= 1000;
  return fixed(size, 1) + " " + units[unit];
}

std::string fileWritten(nlohmann::json const& details, std::string const& how) {
  auto const file = details.value("file", std::string("?"));
  if (!details.value("committed", false)) {
    auto const error = details.value("error", std::string());
    return "nothing written (" + file + " was not created" + (error.empty() ? "" : ": " + error) + ")";
  }
  return std::to_string(details.value("events_written", std::uint64_t{0})) + " events written to " + file + " (" +
         sizeText(details.value("bytes", std::uintmax_t{0})) +
         (details.value("replaced", false) ? ", replaced an earlier file" : "") + (how.empty() ? "" : ", " + how) + ")";
}

}  // namespace lanes
