#include "MultiProcessReport.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <vector>

#include "lanes/core/RunningNote.h"
#include "lanes/monitor/ReportMerge.h"
#include "lanes/monitor/RunReport.h"
#include "lanes/node/MultiProcessJob.h"
#include "MultiProcessWorker.h"

namespace lanes::node {

RunReport mergedFigures(nlohmann::json const& report) {
  std::vector<nlohmann::json const*> parts;
  if (report.contains("prefork") && report["prefork"].is_object()) parts.push_back(&report["prefork"]);
  for (auto const& worker : report["workers"]) {
    if (worker.contains("report")) parts.push_back(&worker["report"]);
  }
  return mergePartReports(parts);
}

namespace {

// A worker's sampled series (its report's `key`: memory or activity) with
// their times moved onto the job's clock; null when it has none.
nlohmann::json onJobClock(nlohmann::json const& worker, char const* key) {
  auto const& part = worker["report"];
  if (!part.contains(key) || !part[key].is_object()) return nullptr;
  auto const started = worker.value("started_s", 0.0);
  auto samples = nlohmann::json::array();
  for (auto sample : part[key].value("samples", nlohmann::json::array())) {
    sample[0] = started + sample[0].get<double>();
    samples.push_back(sample);
  }
  return {{"part", worker["part"]}, {"interval_s", part[key].value("interval_s", 0.0)}, {"samples", samples}};
}

}  // namespace

nlohmann::json crashJson(CrashNote const& note, int signal, JobInfo const& job) {
  nlohmann::json crash{{"signal", signal}, {"module", nullptr}, {"plugin", nullptr}, {"transition", nullptr},
                       {"lane", nullptr}, {"event", nullptr}, {"reading", note.reading != 0}};
  bool const source = note.module == RunnerName::kSource;
  bool const module = note.module >= 0 && static_cast<std::size_t>(note.module) < job.modules.size();
  if (!source && !module) return crash;
  crash["module"] = source ? std::string("source") : job.modules[static_cast<std::size_t>(note.module)].label;
  crash["plugin"] = source ? job.source : job.modules[static_cast<std::size_t>(note.module)].plugin;
  crash["transition"] = toString(static_cast<Transition>(note.transition));
  if (note.lane >= 0) crash["lane"] = note.lane;
  if (note.hasEvent) crash["event"] = note.event.str();
  return crash;
}

namespace {

// The entry of module `label` in the report's `modules`, made with zero figures if no part reported it.
nlohmann::json& moduleEntry(nlohmann::json& modules, std::string const& label, JobInfo const& job) {
  for (auto& module : modules) {
    if (module.value("label", std::string()) == label) return module;
  }
  nlohmann::json entry{{"label", label}, {"calls", 0}, {"events", 0}, {"total_s", 0.0}, {"stall_s", 0.0},
                       {"external_s", 0.0}};
  for (auto const& module : job.modules) {
    if (module.label != label) continue;
    entry["plugin"] = module.plugin;
    entry["kind"] = toString(module.kind);
    entry["concurrency"] = toString(module.concurrency);
  }
  modules.push_back(std::move(entry));
  return modules.back();
}

}  // namespace

void listCrashesUnderTheirModules(nlohmann::json& report, JobInfo const& job) {
  for (auto const& worker : report["workers"]) {
    if (!worker.contains("crash") || worker["crash"]["module"].is_null() || worker["crash"]["module"] == "source") continue;
    auto const& crash = worker["crash"];
    moduleEntry(report["modules"], crash["module"].get<std::string>(), job)["crashes"].push_back(
        {{"part", worker["part"]}, {"pid", worker["pid"]}, {"signal", crash["signal"]},
         {"transition", crash["transition"]}, {"lane", crash["lane"]}, {"event", crash["event"]}});
  }
}

void addMergedFigures(nlohmann::json& report) {
  auto const figures = mergedFigures(report).toJson();
  for (auto const* key : {"modules", "source_s", "outputs_s", "thread_time", "stall_s", "lane_idle_s", "path_report",
                          "event_times", "cpu_user_s", "cpu_sys_s", "cpu_efficiency", "monitor"}) {
    report[key] = figures[key];
  }
  unsigned threads = 0;
  auto memory = nlohmann::json::array();
  auto activity = nlohmann::json::array();
  for (auto const& worker : report["workers"]) {
    if (!worker.contains("report") || !worker["report"].is_object()) continue;  // a worker that died
    threads += worker["report"].value("threads", 0u);
    if (auto series = onJobClock(worker, "memory"); !series.is_null()) memory.push_back(std::move(series));
    if (auto series = onJobClock(worker, "activity"); !series.is_null()) activity.push_back(std::move(series));
  }
  report["threads"] = threads;
  report["memory"]["workers"] = memory;
  report["activity"] = {{"workers", activity}};
}

namespace {

// One line: each worker's largest RSS sample.
void printWorkerMemory(nlohmann::json const& memory, std::ostream& out) {
  if (!memory.is_object() || !memory.contains("workers") || memory["workers"].empty()) return;
  out << "  RSS sampled in each worker, at most:";
  char const* separator = " ";
  for (auto const& worker : memory["workers"]) {
    double most = 0;
    for (auto const& sample : worker["samples"]) most = std::max(most, sample[1].get<double>());
    char figure[64];
    std::snprintf(figure, sizeof figure, "%.1f MiB", most / (1 << 20));
    out << separator << worker["part"].get<std::string>() << " " << figure;
    separator = ", ";
  }
  out << "\n";
}

}  // namespace

void printMultiProcessReport(nlohmann::json const& report, std::ostream& out, SummaryRows rows) {
  auto const megabytes = [](nlohmann::json const& memory, char const* key) {
    return memory.is_object() ? static_cast<double>(memory.value(key, 0ull)) / (1 << 20) : 0.0;
  };
  char line[256];
  std::snprintf(line, sizeof line, "%s, %u processes, %s distribution%s: %llu events in %.2f s = %.1f events/s\n",
                report["mode"].get<std::string>().c_str(), report["processes"].get<unsigned>(),
                report["distribution"].get<std::string>().c_str(),
                report["distribution"] == "queue" ? (" (chunks of " + report["chunk"].dump() + ")").c_str() : "",
                static_cast<unsigned long long>(report["events"].get<std::uint64_t>()), report["wall_s"].get<double>(),
                report["events_per_s"].get<double>());
  out << line;
  bool const shared = report["output_mode"] == "shared-writer";
  if (shared) {
    auto const& writer = report["writer"];
    std::snprintf(line, sizeof line,
                  "finish times spread over %.3f s; the shared writer merged %llu batches (%.1f MiB) as they came, "
                  "closing the outputs took %.3f s\n",
                  report["finish_spread_s"].get<double>(), static_cast<unsigned long long>(writer["batches"].get<std::uint64_t>()),
                  static_cast<double>(writer["bytes"].get<std::uint64_t>()) / (1 << 20), report["merge_s"].get<double>());
  } else {
    std::snprintf(line, sizeof line, "finish times spread over %.3f s; merging the outputs took %.3f s\n",
                  report["finish_spread_s"].get<double>(), report["merge_s"].get<double>());
  }
  out << line;
  auto const& memory = report["memory"];
  std::snprintf(line, sizeof line,
                "memory at the end: total PSS %.1f MiB, total RSS %.1f MiB (parent PSS %.1f MiB); peak total PSS %.1f MiB\n\n",
                megabytes(memory, "total_pss_bytes"), megabytes(memory, "total_rss_bytes"), megabytes(memory["parent"], "pss_bytes"),
                megabytes(memory, "peak_total_pss_bytes"));
  out << line;
  out << "  worker      pid  status    events   events/s  finished_s   RSS MiB   PSS MiB   USS MiB\n";
  for (auto const& worker : report["workers"]) {
    std::snprintf(line, sizeof line, "  %-8s %6d  %-7s %8llu %10.1f %11.3f %9.1f %9.1f %9.1f\n",
                  partName(worker["index"].get<unsigned>()).c_str(), worker["pid"].get<int>(),
                  worker["status"].get<std::string>().c_str(),
                  static_cast<unsigned long long>(worker.value("events", 0ull)), worker.value("events_per_s", 0.0),
                  worker.value("finished_s", 0.0), megabytes(worker["memory"], "rss_bytes"),
                  megabytes(worker["memory"], "pss_bytes"), megabytes(worker["memory"], "uss_bytes"));
    out << line;
  }
  for (auto const& output : report["outputs"]) {
    out << fileWritten(output, shared ? "by the shared writer" : "merged from the workers' parts") << "\n";
  }
  if (report.value("failed", false)) out << "FAILED: " << report["error"].get<std::string>() << "\n";
  printMergedFigures(report, out, rows);
}

void printMergedFigures(nlohmann::json const& report, std::ostream& out, SummaryRows rows) {
  printWorkerMemory(report["memory"], out);
  auto const figures = mergedFigures(report);
  if (figures.threads == 0) return;  // no part finished: nothing to analyse
  out << "\n";
  figures.printAnalysis(out, rows);
}

}  // namespace lanes::node
