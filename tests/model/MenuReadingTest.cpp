// The model's input: a run report's schedule, call times, totals and path
// report read into a menu; every report it cannot model refused in one line.

#include "lanes/model/Menu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "lanes/core/Exception.h"

namespace lanes::model::test {
namespace {

using nlohmann::json;

json histogramOf(double seconds, std::uint64_t count) {
  LogHistogram histogram;
  histogram.add(seconds, count);
  return histogram.toCompactJson(8);
}

// A 2-thread job: a producer, a `one` filter on path HLT consuming it and a
// source product, an output selecting HLT.
json report() {
  return {{"threads", 2},
          {"lanes", 2},
          {"events", 100},
          {"events_per_s", 50.0},
          {"wall_s", 2.0},
          {"cpu_user_s", 1.0},
          {"cpu_sys_s", 0.013},
          {"source_s", 0.01},
          {"failed", false},
          {"modules",
           {{{"label", "tracks"}, {"plugin", "producer"}, {"kind", "producer"}, {"concurrency", "global"},
             {"calls", 100}, {"events", 100}, {"total_s", 1.0}, {"details", {{"work", "busy"}}}},
            {{"label", "trigger"}, {"plugin", "filter"}, {"kind", "filter"}, {"concurrency", "one"},
             {"calls", 100}, {"events", 100}, {"total_s", 0.5}, {"details", {{"work", "sleep"}}}},
            {{"label", "out"}, {"plugin", "dummy"}, {"kind", "output"}, {"concurrency", "global"},
             {"calls", 30}, {"events", 30}, {"total_s", 0.0}}}},
          {"path_report",
           {{"paths",
             {{{"name", "HLT"}, {"modules", {{{"label", "trigger"}, {"visited", 100}, {"accepted", 30}}}}}}}}},
          {"schedule",
           {{"source", {{"replicated", true}, {"reads", "inline"}}},
            {"modules",
             {{{"limit", 1}, {"external_work", false}, {"product_ready", false}, {"after", json::array()}},
              {{"limit", 1},
               {"external_work", false},
               {"product_ready", false},
               {"after", {0}},
               {"source", {{3, 1}}}},
              {{"limit", 1}, {"external_work", false}, {"product_ready", false}, {"after", json::array()}}}},
            {"paths", {{{"name", "HLT"}, {"modules", {1}}}}},
            {"outputs", {{{"module", 2}, {"select", {0}}}}}}},
          {"call_times",
           {{"buckets_per_octave", 8},
            {"modules", {{{"event", histogramOf(0.01, 100)}}, {{"event", histogramOf(0.005, 100)}}, json::object()}},
            {"source", {{"next", histogramOf(0.0001, 100)}}}}}};
}

std::string refusal(json const& bad) {
  try {
    readMenu(bad, "r.json");
  } catch (Exception const& error) {
    return error.what();
  }
  return "(read)";
}

TEST(MenuReadingTest, ReadsTheScheduleTheCostsAndTheFiltersAcceptance) {
  auto const menu = readMenu(report(), "r.json");
  ASSERT_EQ(menu.modules.size(), 3u);
  auto const& trigger = menu.modules[1];
  EXPECT_EQ(trigger.limit, 1u);
  EXPECT_EQ(menu.modules[0].limit, 0u);  // global
  EXPECT_TRUE(trigger.sleeps);
  EXPECT_FALSE(menu.modules[0].sleeps);
  EXPECT_NEAR(trigger.acceptance, 0.3, 1e-12);
  EXPECT_NEAR(trigger.event.mean(), 0.005, 1e-12);  // its total over its calls
  ASSERT_EQ(trigger.prerequisites.size(), 2u);
  EXPECT_FALSE(trigger.prerequisites[0].fromSource);
  EXPECT_EQ(trigger.prerequisites[0].index, 0u);
  EXPECT_TRUE(trigger.prerequisites[1].fromSource);
  EXPECT_EQ(menu.sourceConsumers.at(3), 1u);
  ASSERT_EQ(menu.outputs.size(), 1u);
  EXPECT_EQ(menu.outputs[0].select, std::vector<unsigned>{0});
  EXPECT_TRUE(menu.modules[2].output);
  EXPECT_NEAR(menu.sourceNext.mean(), 0.0001, 1e-12);
  // The CPU less the busy calls (tracks and the source): 1.013 - 1.01 s over 330 calls.
  EXPECT_NEAR(menu.overheadPerCall, 0.003 / 330, 1e-12);
  EXPECT_EQ(menu.measured.threads, 2u);
  EXPECT_EQ(menu.measured.events, 100u);
  EXPECT_FALSE(menu.device.has_value());
}

TEST(MenuReadingTest, TakesCpuBeyondTheOverheadsBoundForSpinning) {
  auto spinning = report();
  spinning["cpu_user_s"] = 2.0;  // idle threads spun through the second
  EXPECT_DOUBLE_EQ(readMenu(spinning, "r.json").overheadPerCall, kMaxOverheadPerCall);
}

std::string traceFile(std::string const& name, std::string const& text) {
  auto const path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(MenuReadingTest, ReadsEachEventsCallsFromTheTrace) {
  auto menu = readMenu(report(), "r.json");
  auto const path = traceFile("lanes-model-trace.json",
                              R"({"displayTimeUnit": "ms", "traceEvents": [)" "\n"
                              R"({"args":{"name":"lanes"},"name":"process_name","ph":"M","pid":1,"tid":0},)" "\n"
                              R"({"ph":"X","name":"tracks","cat":"event","ts":1,"dur":2000,"pid":1,"tid":1,"args":{"lane":0,"event":"1:1:1"}},)" "\n"
                              R"({"ph":"X","name":"trigger","cat":"event","ts":3,"dur":500,"pid":1,"tid":1,"args":{"lane":0,"event":"1:1:1"}},)" "\n"
                              R"({"ph":"X","name":"tracks","cat":"event","ts":9,"dur":4000,"pid":1,"tid":1,"args":{"lane":1,"event":"1:1:2"}})" "\n"
                              "]}\n");
  readTrace(menu, path);
  ASSERT_EQ(menu.recorded.size(), 2u);
  EXPECT_FLOAT_EQ(menu.recorded[0].event[0], 0.002f);
  EXPECT_FLOAT_EQ(menu.recorded[0].event[1], 0.0005f);
  EXPECT_TRUE(std::isnan(menu.recorded[1].event[1]));
  EXPECT_FLOAT_EQ(menu.recorded[1].event[0], 0.004f);
}

TEST(MenuReadingTest, RefusesATraceOfAnotherJobOrNoTrace) {
  auto menu = readMenu(report(), "r.json");
  auto const other = traceFile("lanes-model-other.json",
                               R"({"traceEvents": [)" "\n"
                               R"({"ph":"X","name":"elsewhere","cat":"event","ts":1,"dur":2,"pid":1,"tid":1,"args":{"lane":0,"event":"1:1:1"}})" "\n]}\n");
  EXPECT_THROW(readTrace(menu, other), Exception);
  EXPECT_THROW(readTrace(menu, traceFile("lanes-model-not.json", "[]\n")), Exception);
  EXPECT_THROW(readTrace(menu, "/no/such/trace.json"), Exception);
}

TEST(MenuReadingTest, RefusesWhatItCannotModelInOneLine) {
  EXPECT_EQ(refusal(json::array()), "r.json is not a lanes run report (no events_per_s and wall_s)");
  auto older = report();
  older.erase("schedule");
  EXPECT_NE(refusal(older).find("written by a lanes older than `lanes model`"), std::string::npos);
  auto failed = report();
  failed["failed"] = true;
  failed["error"] = "module 'x' threw";
  EXPECT_NE(refusal(failed).find("a job that failed (module 'x' threw)"), std::string::npos);
  auto empty = report();
  empty["events"] = 0;
  EXPECT_NE(refusal(empty).find("processed no events"), std::string::npos);
  auto damaged = report();
  damaged["schedule"]["modules"].erase(0);
  EXPECT_NE(refusal(damaged).find("is damaged"), std::string::npos);
  auto cuda = report();
  cuda["modules"][0]["details"] = {{"backend", "cuda"}, {"device", {{"kernel_s", 0.001}}}};
  cuda["accel"] = {{"backend", "cuda"}, {"strategy", "external-worker"}};
  EXPECT_NE(refusal(cuda).find("models the emulated one only"), std::string::npos);
  for (auto const& bad : {older, failed, empty, damaged, cuda}) EXPECT_EQ(refusal(bad).find('\n'), std::string::npos);
}

TEST(MenuReadingTest, RefusesDamagedCallTimesAndScheduleInOneLine) {
  auto const damagedBy = [](auto change) {
    auto bad = report();
    change(bad);
    return refusal(bad);
  };
  EXPECT_EQ(damagedBy([](json& r) { r["call_times"]["buckets_per_octave"] = 5; }),
            "r.json is damaged: call_times.buckets_per_octave is not a divisor of 64");
  EXPECT_EQ(damagedBy([](json& r) { r["call_times"]["modules"][0]["event"] = {{"counts", json::array()}}; }),
            "r.json is damaged: call_times event is not [first, counts...]");
  EXPECT_EQ(damagedBy([](json& r) { r["call_times"]["modules"][0]["event"] = {-60, 1.5}; }),
            "r.json is damaged: call_times event is not [first, counts...]");
  EXPECT_EQ(damagedBy([](json& r) { r["call_times"]["source"]["next"] = {-60, -1}; }),
            "r.json is damaged: call_times next has a negative count");
  EXPECT_EQ(damagedBy([](json& r) { r["schedule"]["modules"][1]["source"] = {{3}}; }),
            "r.json is damaged: schedule's source runs are not [first, count]");
  EXPECT_EQ(damagedBy([](json& r) { r["schedule"]["modules"][1]["announced"] = {1, 1}; }),
            "r.json is damaged: schedule's announced and after differ in number");
  EXPECT_EQ(damagedBy([](json& r) { r["schedule"]["modules"][1]["after"] = {7}; }),
            "r.json is damaged: a prerequisite names no module");
}

TEST(MenuReadingTest, ReadsAMultiProcessReportFromItsWorkers) {
  auto merged = report();
  auto worker = report();
  merged.erase("schedule");
  merged.erase("call_times");
  merged["threads"] = 4;  // the workers' summed
  merged["processes"] = 2;
  merged["workers"] = {{{"report", worker}}, {{"report", worker}}};
  auto const menu = readMenu(merged, "r.json");
  EXPECT_EQ(menu.measured.processes, 2u);
  EXPECT_EQ(menu.measured.threads, 2u);
  EXPECT_NEAR(menu.modules[1].event.mean(), 0.005, 1e-12);
}

TEST(MenuReadingTest, ReadsTheEmulatedDeviceAndItsStrategy) {
  auto accel = report();
  accel["modules"][0]["details"] = {
      {"backend", "emulated"},
      {"device", {{"kernel_s", 0.002}, {"copies_to_device", 1.0}, {"to_device_bytes", 1000.0}, {"to_host", true},
                  {"to_host_bytes", 400}}}};
  accel["accel"] = {{"backend", "emulated"}, {"strategy", "waiting-pool"}, {"slots", 2}, {"max_queues", 0},
                    {"waiting_threads", 3}, {"h2d_bytes_per_s", 1e9}, {"d2h_bytes_per_s", 2e9}, {"launch_s", 1e-5}};
  auto const menu = readMenu(accel, "r.json");
  ASSERT_TRUE(menu.device.has_value());
  EXPECT_EQ(menu.device->strategy, Strategy::WaitingPool);
  EXPECT_EQ(menu.device->slots, 2u);
  EXPECT_EQ(menu.device->waitingThreads, 3u);
  ASSERT_TRUE(menu.modules[0].device.has_value());
  EXPECT_DOUBLE_EQ(menu.modules[0].device->kernelSeconds, 0.002);
  EXPECT_TRUE(menu.modules[0].device->toHost);
  EXPECT_EQ(menu.modules[0].device->copiesToDevice, 1u);
}

}  // namespace
}  // namespace lanes::model::test
