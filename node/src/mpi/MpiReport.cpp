#include <cstdio>

#include "multiprocess/MultiProcessReport.h"
#include "lanes/monitor/RunReport.h"
#include "lanes/node/MpiJob.h"

namespace lanes::node {

namespace {

std::string chunks(nlohmann::json const& report, bool queue) {
  if (report["chunk"] == "file") return " (a file at a time)";
  return queue ? " (chunks of " + report["chunk"].dump() + ")" : "";
}

}  // namespace

void printMpiReport(nlohmann::json const& report, std::ostream& out, SummaryRows rows) {
  char line[256];
  bool const queue = report["distribution"] == "mpi-queue";
  std::snprintf(line, sizeof line, "mpi, %u ranks, %s distribution%s: %llu events in %.2f s = %.1f events/s\n",
                report["processes"].get<unsigned>(), report["distribution"].get<std::string>().c_str(),
                chunks(report, queue).c_str(),
                static_cast<unsigned long long>(report["events"].get<std::uint64_t>()), report["wall_s"].get<double>(),
                report["events_per_s"].get<double>());
  out << line;
  bool const shared = report["output_mode"] == "shared-writer";
  std::snprintf(line, sizeof line, "finish times spread over %.3f s; CPU efficiency %.0f%%; %s took %.3f s\n",
                report["finish_spread_s"].get<double>(), 100 * report["cpu_efficiency"].get<double>(),
                shared ? "closing the outputs" : "merging the outputs", report["merge_s"].get<double>());
  out << line;
  if (shared) {
    auto const& writer = report["writer"];
    std::snprintf(line, sizeof line,
                  "rank 0, the shared writer, merged %llu batches (%.1f MiB) as they came, in %.3f s; at most %llu "
                  "queued\n",
                  static_cast<unsigned long long>(writer["batches"].get<std::uint64_t>()),
                  static_cast<double>(writer["bytes"].get<std::uint64_t>()) / (1 << 20), writer["merge_s"].get<double>(),
                  static_cast<unsigned long long>(writer["most_queued"].get<std::uint64_t>()));
    out << line;
  }
  out << "\n";
  out << "  rank  host              pid  status    events   events/s  finished_s   RSS MiB   PSS MiB\n";
  for (auto const& rank : report["workers"]) {
    auto const megabytes = [&](char const* key) {
      return rank["memory"].is_object() ? static_cast<double>(rank["memory"].value(key, 0ull)) / (1 << 20) : 0.0;
    };
    std::snprintf(line, sizeof line, "  %4u  %-14.14s %7d  %-7s %8llu %10.1f %11.3f %9.1f %9.1f\n", rank["rank"].get<unsigned>(),
                  rank["host"].get<std::string>().c_str(), rank["pid"].get<int>(), rank["status"].get<std::string>().c_str(),
                  static_cast<unsigned long long>(rank.value("events", 0ull)), rank.value("events_per_s", 0.0),
                  rank.value("finished_s", 0.0), megabytes("rss_bytes"), megabytes("pss_bytes"));
    out << line;
  }
  for (auto const& output : report["outputs"]) {
    out << fileWritten(output, shared ? "by the shared writer, rank 0" : "merged from the ranks' parts") << "\n";
  }
  if (report.value("failed", false)) out << "FAILED: " << report["error"].get<std::string>() << "\n";
  printMergedFigures(report, out, rows);
}

}  // namespace lanes::node
