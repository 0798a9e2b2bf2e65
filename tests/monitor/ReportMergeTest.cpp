#include "lanes/monitor/ReportMerge.h"

#include <gtest/gtest.h>

#include "lanes/monitor/LogHistogram.h"

namespace lanes {
namespace {

nlohmann::json histogramOf(std::vector<double> const& seconds) {
  LogHistogram histogram;
  for (auto const s : seconds) histogram.add(s);
  return histogram.toJson();
}

// A part's report, as RunReport::toJson() writes it: one path of two modules
// and an output; `scale` makes the parts differ.
nlohmann::json part(double scale, std::vector<double> const& eventSeconds, std::string const& slowest) {
  auto const events = static_cast<std::uint64_t>(eventSeconds.size());
  return {
      {"threads", 2}, {"lanes", 2}, {"events", events}, {"cpu_user_s", 1.0 * scale}, {"cpu_sys_s", 0.1 * scale},
      {"peak_rss_bytes", static_cast<std::uint64_t>(100 * scale)},
      {"modules", {{{"label", "select"}, {"plugin", "filter"}, {"kind", "filter"}, {"concurrency", "one"},
                    {"calls", events}, {"events", events}, {"total_s", 0.5 * scale}, {"stall_s", 0.2 * scale},
                    {"external_s", 0.0}},
                   {{"label", "out"}, {"plugin", "dummy"}, {"kind", "output"}, {"concurrency", "global"},
                    {"calls", events - 1}, {"events", events - 1}, {"total_s", 0.1 * scale}, {"stall_s", 0.0},
                    {"external_s", 0.0}, {"details", {{"events_written", events - 1}}},
                    {"transitions", {{"writeLumi", {{"calls", 3}, {"total_s", 0.01 * scale}}}}}}}},
      {"source_s", 0.3 * scale}, {"outputs_s", 0.1 * scale},
      {"thread_time", {{"total_s", 4.0 * scale}, {"modules_s", 0.5 * scale}, {"source_s", 0.3 * scale},
                       {"outputs_s", 0.1 * scale}, {"transitions_s", 0.01 * scale}, {"overhead_s", 0.1 * scale},
                       {"boundary_s", 0.2 * scale}, {"idle_s", 2.79 * scale}}},
      {"stall_s", 0.2 * scale}, {"lane_idle_s", {0.25 * scale, 0.5 * scale}}, {"lane_boundary_s", {0.1 * scale, 0.1 * scale}},
      {"runs_and_lumis", {{"tracked", true}, {"runs", 1}, {"lumis", static_cast<std::uint64_t>(3 * scale)}, {"repeated_runs", 0},
                          {"repeated_lumis", 1}, {"empty_lumis", 0}, {"concurrent_runs", 1}, {"concurrent_lumis", 2},
                          {"runs_serialised_by", nlohmann::json::array()}, {"lumis_serialised_by", {"dqm"}}}},
      {"path_report", {{"paths", {{{"name", "p"}, {"visited", events}, {"accepted", events - 1}, {"rejected", 1},
                                   {"failed", 0},
                                   {"modules", {{{"label", "select"}, {"visited", events}, {"accepted", events - 1},
                                                 {"rejected", 1}, {"failed", 0}}}}}}},
                       {"outputs", {{{"label", "out"}, {"events", events - 1}}}}}},
      {"event_times", {{"events", events}, {"median_s", 0.0}, {"p90_s", 0.0}, {"p99_s", 0.0},
                       {"max_s", *std::max_element(eventSeconds.begin(), eventSeconds.end())},
                       {"slowest", {{{"event", slowest}, {"s", *std::max_element(eventSeconds.begin(), eventSeconds.end())}}}},
                       {"histogram", histogramOf(eventSeconds)}}}};
}

TEST(ReportMerge, SumsWhatAddsAndKeepsTheKeysOfOneReport) {
  auto const a = part(1.0, {0.01, 0.02, 0.03, 0.04}, "1:1:4");
  auto const b = part(2.0, {0.05, 0.06, 0.07}, "1:1:7");
  auto const merged = mergePartReports({&a, &b}).toJson();
  EXPECT_EQ(merged["threads"], 4);
  EXPECT_EQ(merged["events"], 7);
  EXPECT_EQ(merged["peak_rss_bytes"], 200);
  EXPECT_DOUBLE_EQ(merged["cpu_user_s"].get<double>(), 3.0);
  for (auto const* key : {"total_s", "modules_s", "source_s", "outputs_s", "transitions_s", "overhead_s", "boundary_s", "idle_s"}) {
    EXPECT_DOUBLE_EQ(merged["thread_time"][key].get<double>(),
                     a["thread_time"][key].get<double>() + b["thread_time"][key].get<double>()) << key;
  }
  EXPECT_DOUBLE_EQ(merged["stall_s"].get<double>(), 0.6);
  // Lumi entries summed over the parts (a lumi two processes shared counts in both), the slots as each part's.
  EXPECT_EQ(merged["runs_and_lumis"]["lumis"], 9);
  EXPECT_EQ(merged["runs_and_lumis"]["repeated_lumis"], 2);
  EXPECT_EQ(merged["runs_and_lumis"]["concurrent_lumis"], 2);
  EXPECT_EQ(merged["runs_and_lumis"]["lumis_serialised_by"], nlohmann::json({"dqm"}));
  EXPECT_EQ(merged["lane_boundary_s"], nlohmann::json({0.1, 0.1, 0.2, 0.2}));
  EXPECT_EQ(merged["lane_idle_s"], nlohmann::json({0.25, 0.5, 0.5, 1.0}));  // part after part
  ASSERT_EQ(merged["modules"].size(), 2u);
  auto const& select = merged["modules"][0];
  EXPECT_EQ(select["label"], "select");
  EXPECT_EQ(select["concurrency"], "one");
  EXPECT_EQ(select["calls"], 7);
  EXPECT_DOUBLE_EQ(select["total_s"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(select["stall_s"].get<double>(), 0.6);
  EXPECT_FALSE(merged["modules"][1].contains("details"));  // a part's file is not the job's
  EXPECT_EQ(merged["modules"][1]["transitions"]["writeLumi"]["calls"], 6);
  EXPECT_DOUBLE_EQ(merged["modules"][1]["transitions"]["writeLumi"]["total_s"].get<double>(), 0.03);
  auto const& path = merged["path_report"]["paths"][0];
  EXPECT_EQ(path["visited"], 7);
  EXPECT_EQ(path["accepted"], 5);
  EXPECT_EQ(path["rejected"], 2);
  EXPECT_EQ(path["modules"][0]["visited"], 7);
  EXPECT_EQ(merged["path_report"]["outputs"][0]["events"], 5);
}

TEST(ReportMerge, AModulesRunAndLumiTransitionsAddUpOverTheParts) {
  auto a = part(1.0, {0.01}, "1:1:1");
  auto b = part(2.0, {0.02}, "1:1:2");
  a["modules"][1]["transitions"] = {{"writeLumi", {{"calls", 2}, {"total_s", 0.25}}}};
  b["modules"][1]["transitions"] = {{"writeLumi", {{"calls", 3}, {"total_s", 0.5}}},
                                    {"writeRun", {{"calls", 1}, {"total_s", 0.125}}}};
  auto const transitions = mergePartReports({&a, &b}).toJson()["modules"][1]["transitions"];
  EXPECT_EQ(transitions["writeLumi"]["calls"], 5);
  EXPECT_DOUBLE_EQ(transitions["writeLumi"]["total_s"].get<double>(), 0.75);
  EXPECT_EQ(transitions["writeRun"]["calls"], 1);
}

TEST(ReportMerge, EventTimesAreTheDistributionOfAllTheParts) {
  auto const a = part(1.0, {0.01, 0.02, 0.03, 0.04}, "1:1:4");
  auto const b = part(1.0, {0.05, 0.06, 0.07}, "1:1:7");
  auto const times = mergePartReports({&a, &b}).eventTimes;
  EXPECT_EQ(times["events"], 7);
  EXPECT_NEAR(times["median_s"].get<double>(), 0.04, 0.04 * 0.0055);  // the 4th of 7: a's largest
  EXPECT_NEAR(times["p90_s"].get<double>(), 0.07, 0.07 * 0.0055);
  EXPECT_LE(times["p99_s"].get<double>(), 0.07);  // never above the exact maximum
  EXPECT_DOUBLE_EQ(times["max_s"].get<double>(), 0.07);
  ASSERT_EQ(times["slowest"].size(), 1u);
  EXPECT_EQ(times["slowest"][0]["event"], "1:1:7");
  EXPECT_EQ(LogHistogram::fromJson(times["histogram"]).count(), 7u);
}

// A part's monitor section, as MonitorCost::toJson() writes it.
nlohmann::json monitorOf(std::uint64_t calls, std::uint64_t waits, std::uint64_t events, double nsPerCall,
                         double nsPerWait) {
  auto const seconds =
      1e-9 * (static_cast<double>(calls) * nsPerCall + static_cast<double>(waits + events) * nsPerWait);
  return {{"timed_calls", calls},    {"timed_waits", waits},   {"timed_events", events}, {"ns_per_call", nsPerCall},
          {"ns_per_wait", nsPerWait}, {"estimated_s", seconds}, {"thread_time_share", 0.5}};
}

TEST(ReportMerge, TheMonitorsCostIsTheSumOfThePartsWithTheirPerRecordCostsWeighted) {
  auto a = part(1.0, {0.01, 0.02}, "1:1:2");
  auto b = part(3.0, {0.03}, "1:1:3");
  a["monitor"] = monitorOf(1000, 200, 2, 30.0, 10.0);
  b["monitor"] = monitorOf(3000, 600, 1, 50.0, 20.0);
  auto const monitor = mergePartReports({&a, &b}).toJson()["monitor"];
  EXPECT_EQ(monitor["timed_calls"], 4000);
  EXPECT_EQ(monitor["timed_waits"], 800);
  EXPECT_EQ(monitor["timed_events"], 3);
  auto const seconds = a["monitor"]["estimated_s"].get<double>() + b["monitor"]["estimated_s"].get<double>();
  EXPECT_DOUBLE_EQ(monitor["estimated_s"].get<double>(), seconds);
  EXPECT_DOUBLE_EQ(monitor["ns_per_call"].get<double>(), (1000 * 30.0 + 3000 * 50.0) / 4000);
  EXPECT_DOUBLE_EQ(monitor["ns_per_wait"].get<double>(), (202 * 10.0 + 601 * 20.0) / 803);
  EXPECT_NEAR(4000 * monitor["ns_per_call"].get<double>() + 803 * monitor["ns_per_wait"].get<double>(), 1e9 * seconds,
              1e-6);
  // The share is of the merged thread time (4 s + 12 s), not a part's.
  EXPECT_DOUBLE_EQ(monitor["thread_time_share"].get<double>(), seconds / 16.0);
}

TEST(ReportMerge, CpuEfficiencyIsThePartsCpuOverTheirThreadTime) {
  auto const a = part(1.0, {0.01}, "1:1:1");
  auto const b = part(2.0, {0.02}, "1:1:2");
  auto const merged = mergePartReports({&a, &b}).toJson();
  EXPECT_DOUBLE_EQ(merged["cpu_efficiency"].get<double>(), (1.1 + 2.2) / (4.0 + 8.0));
}

TEST(ReportMerge, PartsWithoutAMonitorSectionCountAsZero) {
  auto const a = part(1.0, {0.01}, "1:1:1");
  auto b = part(1.0, {0.02}, "1:1:2");
  b["monitor"] = monitorOf(10, 0, 1, 40.0, 0.0);
  auto const monitor = mergePartReports({&a, &b}).toJson()["monitor"];
  EXPECT_EQ(monitor["timed_calls"], 10);
  EXPECT_DOUBLE_EQ(monitor["ns_per_call"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(monitor["ns_per_wait"].get<double>(), 0.0);
  EXPECT_EQ(mergePartReports({}).toJson()["monitor"]["timed_calls"], 0);
}

TEST(ReportMerge, ThePartsTimingSampleIsKept) {
  auto a = part(1.0, {0.01}, "1:1:1");
  auto b = part(1.0, {0.02}, "1:1:2");
  a["monitor"] = monitorOf(10, 0, 1, 40.0, 0.0);
  b["monitor"] = monitorOf(20, 0, 1, 40.0, 0.0);
  EXPECT_EQ(mergePartReports({&a, &b}).toJson()["monitor"]["timing_sample"], 1);
  a["monitor"]["timing_sample"] = 16;
  b["monitor"]["timing_sample"] = 16;
  EXPECT_EQ(mergePartReports({&a, &b}).toJson()["monitor"]["timing_sample"], 16);
}

TEST(ReportMerge, PartsWithoutFiguresCountAsZero) {
  auto const a = part(1.0, {0.01, 0.02}, "1:1:2");
  nlohmann::json const empty = nlohmann::json::object();
  nlohmann::json const missing;  // a worker that wrote no report
  auto const merged = mergePartReports({&a, &empty, &missing, nullptr}).toJson();
  EXPECT_EQ(merged["events"], 2);
  EXPECT_EQ(merged["lane_idle_s"].size(), 2u);
  EXPECT_EQ(merged["event_times"]["events"], 2);
  EXPECT_EQ(mergePartReports({}).toJson()["event_times"]["events"], 0);
}

}  // namespace
}  // namespace lanes
