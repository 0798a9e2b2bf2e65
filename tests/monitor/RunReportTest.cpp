#include "lanes/monitor/RunReport.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "Synthetic.h"

namespace lanes {
namespace {

using std::chrono::milliseconds;
using test::call;

// 4 threads, 2 s of wall time, 6 s of CPU; "select" is the slowest module
// and waited `stall` for its queue.
RunReport sampleReport(RunSummary const& summary = {100, 3, false, false, ""},
                       Clock::duration stall = Clock::duration::zero()) {
  auto const job = test::syntheticJob(4);
  ModuleStatistics statistics;
  statistics.jobStarted(job);
  statistics.waitFinished({1, WaitKind::Queue, 0, EventId{1, 1, 1}, Clock::time_point{}, Clock::time_point{} + stall});
  statistics.callFinished(call(kSourceProducer, Transition::SourceRead, milliseconds(100)));
  statistics.callFinished(call(0, Transition::Event, milliseconds(200)));
  statistics.callFinished(call(1, Transition::Event, milliseconds(600)));
  statistics.callFinished(call(2, Transition::Event, milliseconds(100)));
  statistics.jobFinished();
  return RunReport::build(job, statistics, summary, std::chrono::seconds(2), {5.0, 1.0, 64u << 20});
}

std::set<std::string> keysOf(nlohmann::json const& object) {
  std::set<std::string> keys;
  for (auto const& item : object.items()) keys.insert(item.key());
  return keys;
}

TEST(RunReport, DerivesTheFigures) {
  auto const report = sampleReport();
  EXPECT_EQ(report.threads, 4u);
  EXPECT_EQ(report.events, 100u);
  EXPECT_EQ(report.eventsSkipped, 3u);
  EXPECT_DOUBLE_EQ(report.wallSeconds, 2.0);
  EXPECT_DOUBLE_EQ(report.eventsPerSecond, 50.0);
  EXPECT_DOUBLE_EQ(report.cpuEfficiency, 6.0 / (4 * 2.0));
  EXPECT_EQ(report.peakRssBytes, 64u << 20);
  ASSERT_EQ(report.modules.size(), 3u);
  EXPECT_EQ(report.modules[1].label, "select");
  EXPECT_EQ(report.modules[1].kind, "filter");
  EXPECT_EQ(report.modules[1].concurrency, "one");
  EXPECT_EQ(report.modules[1].calls, 1u);
  EXPECT_DOUBLE_EQ(report.modules[1].totalSeconds, 0.6);
  EXPECT_DOUBLE_EQ(report.sourceSeconds, 0.1);
  EXPECT_DOUBLE_EQ(report.outputsSeconds, 0.1);
  EXPECT_FALSE(report.versions.lanes.empty());
  EXPECT_FALSE(report.versions.tbb.empty());
  EXPECT_FALSE(report.versions.compiler.empty());
}

TEST(RunReport, JsonHasEveryKey) {
  auto const json = sampleReport().toJson();
  EXPECT_EQ(keysOf(json), (std::set<std::string>{"threads", "lanes", "events", "events_skipped", "wall_s",
                                                 "events_per_s", "cpu_user_s", "cpu_sys_s", "cpu_efficiency",
                                                 "peak_rss_bytes", "modules", "source_s", "outputs_s", "thread_time",
                                                 "stall_s", "lane_idle_s", "path_report", "event_times", "memory",
                                                 "monitor", "failed", "error", "stop_requested", "versions"}));
  ASSERT_EQ(json.at("modules").size(), 3u);
  EXPECT_EQ(keysOf(json.at("modules")[0]),
            (std::set<std::string>{"label", "plugin", "kind", "concurrency", "calls", "events", "total_s", "stall_s",
                                   "external_s"}));
  EXPECT_EQ(keysOf(json.at("thread_time")),
            (std::set<std::string>{"total_s", "modules_s", "source_s", "outputs_s", "overhead_s", "idle_s"}));
  EXPECT_EQ(keysOf(json.at("path_report")), (std::set<std::string>{"paths", "outputs"}));
  EXPECT_EQ(keysOf(json.at("versions")), (std::set<std::string>{"lanes", "tbb", "compiler"}));
  EXPECT_EQ(keysOf(json.at("monitor")),
            (std::set<std::string>{"timed_calls", "timed_waits", "timed_events", "ns_per_call", "ns_per_wait", "timing_sample",
                                   "estimated_s", "thread_time_share"}));
  EXPECT_EQ(json.at("events_per_s"), 50.0);
}

TEST(RunReport, EstimatesTheMonitorsCostFromTheRecordsItTimed) {
  auto const report = sampleReport();
  EXPECT_EQ(report.monitor.calls, 4u);
  EXPECT_EQ(report.monitor.waits, 1u);
  EXPECT_EQ(report.monitor.events, 103u);  // the skipped ones' ends were timed too
  auto const json = report.toJson();
  EXPECT_DOUBLE_EQ(json["monitor"]["thread_time_share"].get<double>(), report.monitor.seconds / 8.0);
  std::ostringstream text;
  report.printTable(text);
  EXPECT_NE(text.str().find("monitor ~"), std::string::npos);
  auto untimed = report;  // as a report merged from several processes' is
  untimed.monitor = {};
  std::ostringstream none;
  untimed.printTable(none);
  EXPECT_EQ(none.str().find("monitor ~"), std::string::npos);
}

TEST(RunReport, WritesTheJsonItDescribes) {
  auto const report = sampleReport();
  auto const path = testing::TempDir() + "lanes-report.json";
  report.writeJson(path);
  std::ifstream in(path);
  EXPECT_EQ(nlohmann::json::parse(in), report.toJson());
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::filesystem::remove(path);
}

TEST(RunReport, MissingDirectoryThrowsNamingTheFile) {
  auto const path = testing::TempDir() + "lanes-no-such-directory/report.json";
  try {
    sampleReport().writeJson(path);
    FAIL() << "expected lanes::Exception";
  } catch (Exception const& error) {
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
  }
}

TEST(RunReport, TableListsModulesByTotalTime) {
  std::ostringstream table;
  sampleReport().printTable(table);
  auto const text = table.str();
  auto const select = text.find("select"), tracks = text.find("tracks"), source = text.find("(source)");
  ASSERT_NE(select, std::string::npos);
  ASSERT_NE(tracks, std::string::npos);
  ASSERT_NE(source, std::string::npos);
  EXPECT_LT(select, tracks);
  EXPECT_LT(tracks, source);
  EXPECT_NE(text.find("60.0%"), std::string::npos) << text;  // 0.6 s of 1.0 s
  EXPECT_NE(text.find("50.0 events/s"), std::string::npos) << text;
  EXPECT_EQ(text.find("FAILED"), std::string::npos) << text;
}

TEST(RunReport, TableSumsUpTheRowsPastTheLimit) {
  std::ostringstream table;
  sampleReport().printTable(table, 2);
  auto const text = table.str();
  EXPECT_NE(text.find("select"), std::string::npos) << text;
  EXPECT_NE(text.find("tracks"), std::string::npos) << text;
  EXPECT_EQ(text.find("writer"), std::string::npos) << text;
  EXPECT_NE(text.find("(2 more)"), std::string::npos) << text;  // the writer and the source: 0.2 s of 1.0 s
  EXPECT_NE(text.find("20.0%"), std::string::npos) << text;
}

TEST(RunReport, ThreadTimeSplitsIntoCallsOverheadAndIdle) {
  auto const time = sampleReport().threadTime;
  EXPECT_DOUBLE_EQ(time.totalSeconds, 8.0);
  EXPECT_DOUBLE_EQ(time.modulesSeconds, 0.8);  // tracks and select; the writer is an output
  EXPECT_DOUBLE_EQ(time.sourceSeconds, 0.1);
  EXPECT_DOUBLE_EQ(time.outputsSeconds, 0.1);
  EXPECT_DOUBLE_EQ(time.overheadSeconds, 6.0 - 1.0);  // CPU outside the calls
  EXPECT_DOUBLE_EQ(time.idleSeconds, 8.0 - 6.0);
}

TEST(RunReport, TableNamesTheModuleThatStallsMostOnlyWhenStallsMatter) {
  std::ostringstream quiet, stalled;
  sampleReport({100, 0, false, false, ""}, std::chrono::milliseconds(100)).printTable(quiet);  // 1.25% of 8 s
  EXPECT_EQ(quiet.str().find("stalls"), std::string::npos) << quiet.str();
  auto const report = sampleReport({100, 0, false, false, ""}, std::chrono::milliseconds(800));  // 10%
  EXPECT_DOUBLE_EQ(report.stallSeconds, 0.8);
  EXPECT_DOUBLE_EQ(report.toJson().at("modules")[1].at("stall_s"), 0.8);
  report.printTable(stalled);
  EXPECT_NE(stalled.str().find("stalls 0.800 s (10.0% of thread time), most in select"), std::string::npos)
      << stalled.str();
}

TEST(RunReport, TablePrintsThePathReport) {
  auto report = sampleReport();
  report.paths = nlohmann::json::parse(R"([{"name": "HLT_A", "visited": 100, "accepted": 40, "rejected": 60,
      "failed": 0, "modules": [{"label": "select", "visited": 100, "accepted": 40, "rejected": 60, "failed": 0}]}])");
  std::ostringstream table;
  report.printTable(table);
  auto const text = table.str();
  EXPECT_NE(text.find("HLT_A"), std::string::npos) << text;
  EXPECT_NE(text.find("output writer: 1 events written"), std::string::npos) << text;
  EXPECT_EQ(report.toJson().at("path_report").at("outputs")[0].at("events"), 1);
}

TEST(RunReport, TableShowsTheError) {
  std::ostringstream table;
  sampleReport({7, 0, true, false, "module 'select' (event 1:1:7): boom"}).printTable(table);
  EXPECT_NE(table.str().find("FAILED: module 'select' (event 1:1:7): boom"), std::string::npos) << table.str();
}

TEST(RunReport, NamesTheFilesTheSourceSkipped) {
  auto report = sampleReport();
  EXPECT_FALSE(report.toJson().contains("source")) << "no details, no key";
  report.source = nlohmann::json::parse(R"({"skipped_files": [{"file": "b.root", "error": "'b.root' is truncated"}]})");
  EXPECT_EQ(report.toJson().at("source").at("skipped_files")[0].at("file"), "b.root");
  std::ostringstream table;
  report.printTable(table);
  EXPECT_NE(table.str().find("skipped b.root: 'b.root' is truncated\n"), std::string::npos) << table.str();
}

}  // namespace
}  // namespace lanes
