#include "lanes/monitor/RunReport.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include <tbb/version.h>

#include "lanes/monitor/AtomicFile.h"

namespace lanes {

namespace {

double ratio(double numerator, double denominator) { return denominator > 0 ? numerator / denominator : 0.0; }

std::vector<ModuleReport> moduleReports(JobInfo const& job, ModuleStatistics::Totals const& totals,
                                        std::vector<std::string> const& details) {
  std::vector<ModuleReport> reports;
  for (std::size_t i = 0; i < job.modules.size(); ++i) {
    auto const& module = job.modules[i];
    reports.push_back({module.label, module.plugin, toString(module.kind), toString(module.concurrency),
                       totals.modules[i].calls, totals.modules[i].seconds(), nullptr});
    if (i < details.size() && !details[i].empty()) reports.back().details = nlohmann::json::parse(details[i]);
  }
  return reports;
}

std::string compilerVersion() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

// One line per output that reports a file in its details (Module::details()).
void printFilesWritten(RunReport const& report, std::ostream& out) {
  for (auto const& module : report.modules) {
    auto const& details = module.details;
    if (!details.is_object() || !details.contains("file")) continue;
    out << "  " << module.label << ": ";
    if (details.value("committed", false)) {
      out << details.value("events_written", std::uint64_t{0}) << " events written to " << details["file"].get<std::string>()
          << " (" << std::fixed << std::setprecision(1) << details.value("bytes", 0.0) / 1e6 << " MB)\n";
    } else {
      out << "nothing written (" << details["file"].get<std::string>() << " was not created)\n";
    }
  }
}

}  // namespace

VersionReport VersionReport::current() {
  return {LANES_VERSION, std::string(TBB_runtime_version()) + " (headers " TBB_VERSION_STRING ")", compilerVersion()};
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
  report.wallSeconds = std::chrono::duration<double>(wall).count();
  report.eventsPerSecond = ratio(static_cast<double>(report.events), report.wallSeconds);
  report.cpuUserSeconds = usage.cpuUserSeconds;
  report.cpuSystemSeconds = usage.cpuSystemSeconds;
  report.cpuEfficiency = ratio(usage.cpuUserSeconds + usage.cpuSystemSeconds, job.threads * report.wallSeconds);
  report.peakRssBytes = usage.peakRssBytes;
  report.modules = moduleReports(job, totals, moduleDetails);
  report.sourceSeconds = totals.source.seconds();
  report.outputsSeconds = totals.outputs.seconds();
  report.failed = summary.failed;
  report.error = summary.error;
  report.stopRequested = summary.stopRequested;
  report.versions = VersionReport::current();
  if (!sourceDetails.empty()) report.source = nlohmann::json::parse(sourceDetails);
  return report;
}

nlohmann::json RunReport::toJson() const {
  auto modulesJson = nlohmann::json::array();
  for (auto const& module : modules) {
    modulesJson.push_back({{"label", module.label},
                           {"plugin", module.plugin},
                           {"kind", module.kind},
                           {"concurrency", module.concurrency},
                           {"calls", module.calls},
                           {"total_s", module.totalSeconds}});
    if (!module.details.is_null()) modulesJson.back()["details"] = module.details;
  }
  nlohmann::json json = sections;
  json.update(nlohmann::json{{"threads", threads},
                             {"lanes", lanes},
                             {"events", events},
                             {"events_skipped", eventsSkipped},
                             {"wall_s", wallSeconds},
                             {"events_per_s", eventsPerSecond},
                             {"cpu_user_s", cpuUserSeconds},
                             {"cpu_sys_s", cpuSystemSeconds},
                             {"cpu_efficiency", cpuEfficiency},
                             {"peak_rss_bytes", peakRssBytes},
                             {"modules", modulesJson},
                             {"source_s", sourceSeconds},
                             {"outputs_s", outputsSeconds},
                             {"failed", failed},
                             {"error", error},
                             {"stop_requested", stopRequested},
                             {"versions", {{"lanes", versions.lanes}, {"tbb", versions.tbb}, {"compiler", versions.compiler}}}});
  if (!source.is_null()) json["source"] = source;
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

void printHeadline(RunReport const& report, std::ostream& out) {
  out << "lanes " << report.versions.lanes << ": " << report.events << " events";
  if (report.eventsSkipped > 0) out << " (+" << report.eventsSkipped << " skipped)";
  out << " in " << fixed(report.wallSeconds, 3) << " s = " << fixed(report.eventsPerSecond, 1) << " events/s  ["
      << report.threads << " threads, " << report.lanes << " lanes]\n";
  out << "  CPU " << fixed(report.cpuUserSeconds, 3) << " s user + " << fixed(report.cpuSystemSeconds, 3)
      << " s sys = " << fixed(100 * report.cpuEfficiency, 1) << "% of " << report.threads << " threads\n";
  out << "  peak RSS " << fixed(static_cast<double>(report.peakRssBytes) / (1 << 20), 1) << " MiB\n";
  out << "  time in source " << fixed(report.sourceSeconds, 3) << " s, in outputs " << fixed(report.outputsSeconds, 3)
      << " s\n";
  if (report.stopRequested) out << "  stopped early on request\n";
  if (report.failed) out << "  FAILED: " << report.error << "\n";
}

struct Row {
  std::string label, plugin, kind, concurrency, calls;
  double seconds;
};

// The modules and the source, by total time, longest first; past `maxRows`,
// one row sums up the rest.
std::vector<Row> tableRows(RunReport const& report, std::size_t maxRows) {
  std::vector<Row> rows;
  for (auto const& module : report.modules) {
    rows.push_back({module.label, module.plugin, module.kind, module.concurrency, std::to_string(module.calls),
                    module.totalSeconds});
  }
  rows.push_back({"(source)", "", "", "", "", report.sourceSeconds});
  std::stable_sort(rows.begin(), rows.end(), [](Row const& a, Row const& b) { return a.seconds > b.seconds; });
  if (rows.size() > maxRows) {
    Row rest{"(" + std::to_string(rows.size() - maxRows) + " more)", "", "", "", "", 0.0};
    for (auto it = rows.begin() + static_cast<std::ptrdiff_t>(maxRows); it != rows.end(); ++it) rest.seconds += it->seconds;
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
  auto const line = [&](Row const& row, std::string const& seconds, std::string const& share) {
    out << "  " << std::left << std::setw(labelWidth) << row.label << "  " << std::setw(pluginWidth) << row.plugin
        << "  " << std::setw(8) << row.kind << "  " << std::setw(11) << row.concurrency << std::right << std::setw(10)
        << row.calls << std::setw(11) << seconds << std::setw(8) << share << "\n";
  };
  line({"module", "plugin", "kind", "concurrency", "calls", 0}, "total s", "share");
  for (auto const& row : rows) line(row, fixed(row.seconds, 3), fixed(100 * ratio(row.seconds, total), 1) + "%");
}

}  // namespace

void RunReport::printTable(std::ostream& out, std::size_t maxRows) const {
  auto const flags = out.flags();
  printHeadline(*this, out);
  out << "\n";
  printModules(*this, maxRows, out);
  printFilesWritten(*this, out);
  printSkippedFiles(source, out);
  out.flags(flags);
}

void printSkippedFiles(nlohmann::json const& source, std::ostream& out) {
  if (!source.is_object() || !source.contains("skipped_files")) return;
  for (auto const& skipped : source["skipped_files"]) {
    out << "  skipped " << skipped["file"].get<std::string>() << ": " << skipped["error"].get<std::string>() << "\n";
  }
}

}  // namespace lanes
