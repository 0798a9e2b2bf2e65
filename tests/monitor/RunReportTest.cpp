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
RunReport sampleReport(RunSummary const& summary = {100, 3, false, false, "", false, 2},
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
  EXPECT_EQ(report.runsStolen, 2u);
  EXPECT_EQ(report.toJson()["runs_stolen"], 2u);
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
  EXPECT_FALSE(report.provenance.lanesVersion.empty());
  EXPECT_FALSE(report.provenance.tbbVersion.empty());
  EXPECT_FALSE(report.provenance.compiler.empty());
  EXPECT_FALSE(report.provenance.started.empty());
}

TEST(RunReport, JsonHasEveryKey) {
  auto const json = sampleReport().toJson();
  EXPECT_EQ(keysOf(json), (std::set<std::string>{"threads", "lanes", "events", "events_skipped", "runs_stolen", "wall_s",
                                                 "events_per_s", "cpu_user_s", "cpu_sys_s", "cpu_efficiency",
                                                 "peak_rss_bytes", "modules", "source_s", "outputs_s", "thread_time",
                                                 "stall_s", "lane_idle_s", "lane_boundary_s", "runs_and_lumis",
                                                 "conditions", "path_report", "event_times", "memory", "activity", "monitor",
                                                 "failed", "error", "stop_requested", "provenance", "schedule",
                                                 "call_times"}));
  ASSERT_EQ(json.at("modules").size(), 3u);
  EXPECT_EQ(keysOf(json.at("modules")[0]),
            (std::set<std::string>{"label", "plugin", "kind", "concurrency", "calls", "events", "total_s", "stall_s",
                                   "external_s", "conditions_s"}));
  EXPECT_EQ(keysOf(json.at("thread_time")),
            (std::set<std::string>{"total_s", "modules_s", "source_s", "outputs_s", "transitions_s", "overhead_s",
                                   "boundary_s", "idle_s"}));
  EXPECT_EQ(keysOf(json.at("runs_and_lumis")),
            (std::set<std::string>{"tracked", "runs", "lumis", "repeated_runs", "repeated_lumis", "empty_lumis", "concurrent_runs",
                                   "concurrent_lumis", "runs_serialised_by", "lumis_serialised_by"}));
  EXPECT_EQ(keysOf(json.at("path_report")), (std::set<std::string>{"paths", "outputs"}));
  // lanes_tests links the ROOT plugins, which name ROOT's release.
  EXPECT_EQ(keysOf(json.at("provenance")),
            (std::set<std::string>{"command", "menu", "host", "cpu_model", "cpu_id", "cores", "numa_nodes", "kernel",
                                   "lanes_version", "git_commit", "root_version", "tbb_version", "compiler",
                                   "started"}));
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
  sampleReport().printTable(table, {2});
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

// `count` paths named P0, P1, ...: path i visited 100 + i events; those in
// `rejecting` rejected 10 of them at their second module.
nlohmann::json paths(int count, std::set<int> const& rejecting) {
  auto paths = nlohmann::json::array();
  for (int i = 0; i < count; ++i) {
    int const visited = 100 + i, rejected = rejecting.count(i) ? 10 : 0;
    auto const counts = [](int v, int r) { return nlohmann::json{{"visited", v}, {"accepted", v - r}, {"rejected", r}, {"failed", 0}}; };
    auto path = counts(visited, rejected);
    path["name"] = "P" + std::to_string(i);
    path["modules"] = {counts(visited, 0), counts(visited, rejected)};
    path["modules"][0]["label"] = "first" + std::to_string(i);
    path["modules"][1]["label"] = "second" + std::to_string(i);
    paths.push_back(path);
  }
  return paths;
}

std::vector<std::string> linesOf(std::string const& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The path report's rows after its header, each cut after its name (before the counts).
std::vector<std::string> pathRows(std::string const& text) {
  std::vector<std::string> rows;
  bool inside = false;
  for (auto const& line : linesOf(text)) {
    if (line.find("path/module") != std::string::npos) {
      inside = true;
    } else if (inside && line.rfind("  output ", 0) == 0) {
      break;
    } else if (inside) {
      rows.push_back(line.substr(0, line.find("  ", line.find_first_not_of(' '))));
    }
  }
  return rows;
}

TEST(RunReport, PathReportFoldsToRejectingPathsThenTheBusiest) {
  auto report = sampleReport();
  report.paths = paths(40, {3, 7});
  std::ostringstream table;
  report.printTable(table, {15, 4});
  auto const rows = pathRows(table.str());
  // P7 and P3 rejected, P7 the busier of them; then P39 and P38, the busiest; a
  // folded path lists only its modules that rejected or failed events.
  ASSERT_EQ(rows.size(), 7u) << table.str();
  EXPECT_EQ(rows[0], "  P7");
  EXPECT_EQ(rows[1], "    second7");
  EXPECT_EQ(rows[2], "  P3");
  EXPECT_EQ(rows[3], "    second3");
  EXPECT_EQ(rows[4], "  P39");
  EXPECT_EQ(rows[5], "  P38");
  EXPECT_EQ(rows[6], "  (36 more paths, none rejecting or failing an event)");
  EXPECT_NE(table.str().find("--summary full prints every module and path"), std::string::npos) << table.str();
}

TEST(RunReport, PathReportSaysHowManyFoldedPathsRejected) {
  auto report = sampleReport();
  report.paths = paths(10, {1, 2, 3});
  std::ostringstream table;
  report.printTable(table, {15, 2});
  EXPECT_NE(table.str().find("(8 more paths, 1 of them rejecting or failing events)"), std::string::npos) << table.str();
}

TEST(RunReport, FullSummaryListsEveryPathAndModuleInJobOrder) {
  auto report = sampleReport();
  report.paths = paths(40, {3});
  std::ostringstream table;
  report.printTable(table, SummaryRows::all());
  auto const rows = pathRows(table.str());
  ASSERT_EQ(rows.size(), 120u) << table.str();
  EXPECT_EQ(rows[0], "  P0");
  EXPECT_EQ(rows[1], "    first0");
  EXPECT_EQ(rows[119], "    second39");
  EXPECT_EQ(table.str().find("more"), std::string::npos) << table.str();
  EXPECT_EQ(table.str().find("--summary full"), std::string::npos) << "nothing folded, nothing to say";
}

TEST(RunReport, ASmallReportIsNotFolded) {
  auto report = sampleReport();
  report.paths = paths(3, {});
  std::ostringstream table;
  report.printTable(table);
  EXPECT_EQ(pathRows(table.str()).size(), 9u) << table.str();
  EXPECT_EQ(table.str().find("--summary full"), std::string::npos) << table.str();
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
