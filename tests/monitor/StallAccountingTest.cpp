// The stall accounting on real jobs under contention: many lanes on a few
// threads, `one` and `limited` modules, external work. Only relations that
// must hold whatever the timing are asserted (no thresholds).

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "Recorder.h"
#include "core/TestPlugins.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/monitor/EventStatistics.h"
#include "lanes/monitor/ModuleStatistics.h"
#include "lanes/monitor/PathStatistics.h"
#include "lanes/monitor/RunReport.h"

namespace lanes::test {
namespace {

struct Shape {
  unsigned threads;
  unsigned lanes;
};

constexpr int kEvents = 40;
// Module indices in the job below (modules in order, then outputs).
constexpr unsigned kGpu = 0, kSerial = 1, kFew = 2, kEven = 3, kOut = 4;

class StallAccountingTest : public ::testing::TestWithParam<Shape>, protected ObservedJob {
 protected:
  void SetUp() override {
    auto config = job("count:events=" + std::to_string(kEvents));
    config.threads = GetParam().threads;
    config.lanes = GetParam().lanes;
    config.modules = {{"gpu", PluginSpec::parse("external")},
                      {"serial", PluginSpec::parse("one-probe")},
                      {"few", PluginSpec::parse("limited-probe:limit=2")},
                      {"even", PluginSpec::parse("even:in=n")}};
    config.paths = {{"selected", {"even", "serial"}}};
    config.outputs.push_back({"out", PluginSpec::parse("collect:in=gpu,ready=true"), {}});
    auto const start = Clock::now();
    auto const summary = run(std::move(config), testRegistry(observations));
    auto const wall = Clock::now() - start;
    ASSERT_FALSE(summary.failed) << summary.error;
    totals = statistics.totals();
    // All the CPU the threads could have used: the breakdown's overhead and idle are then exact complements.
    double const threadSeconds = info.threads * std::chrono::duration<double>(wall).count();
    report = RunReport::build(info, statistics, summary, wall, {threadSeconds / 2, 0.0, 0});
  }

  std::vector<WaitRecord> waitsOf(WaitKind kind, unsigned module) const {
    std::vector<WaitRecord> found;
    for (auto const& wait : recorder.waits) {
      if (wait.kind == kind && wait.module == module) found.push_back(wait);
    }
    return found;
  }
  std::vector<CallRecord> callsOf(unsigned module, Transition transition) const {
    std::vector<CallRecord> found;
    for (auto const& call : recorder.calls) {
      if (call.module == module && call.transition == transition) found.push_back(call);
    }
    return found;
  }

  Observations observations;
  ModuleStatistics::Totals totals;
  RunReport report;
};

// The external module completes from a plain std::thread; its wait is still reported from the job's threads.
TEST_P(StallAccountingTest, NoHookIsCalledFromTheThreadThatCompletesExternalWork) {
  ASSERT_FALSE(waitsOf(WaitKind::External, kGpu).empty());
  EXPECT_EQ(recorder.fromForeignThreads, 0);
}

TEST_P(StallAccountingTest, EveryWaitEndsAfterItBegins) {
  ASSERT_FALSE(recorder.waits.empty());
  for (auto const& wait : recorder.waits) {
    EXPECT_LE(wait.begin, wait.end) << toString(wait.kind);
    EXPECT_LT(wait.lane, GetParam().lanes);
  }
  for (auto const& module : report.modules) {
    EXPECT_GE(module.stallSeconds, 0.0) << module.label;
    EXPECT_GE(module.externalSeconds, 0.0) << module.label;
  }
}

TEST_P(StallAccountingTest, SerialisedModulesWaitForTheirQueueBeforeEachCall) {
  // The serial module runs on the accepted half of the events, the limited one on all.
  for (auto [module, calls] : {std::pair{kSerial, kEvents / 2}, std::pair{kFew, kEvents}}) {
    auto const waits = waitsOf(WaitKind::Queue, module);
    ASSERT_EQ(waits.size(), static_cast<std::size_t>(calls)) << info.modules[module].label;
    EXPECT_GT(totals.waits[module].queue, Clock::duration::zero()) << info.modules[module].label;
    // Each call began after its wait ended, on the same lane and event.
    for (auto const& call : callsOf(module, Transition::Event)) {
      auto const wait = std::find_if(waits.begin(), waits.end(), [&](WaitRecord const& w) {
        return w.lane == call.lane && w.event == call.event;
      });
      ASSERT_NE(wait, waits.end());
      EXPECT_LE(wait->end, call.begin);
    }
  }
  // A module that no queue serialises never stalls.
  EXPECT_TRUE(waitsOf(WaitKind::Queue, kEven).empty());
  EXPECT_EQ(totals.waits[kEven].queue, Clock::duration::zero());
  EXPECT_DOUBLE_EQ(report.stallSeconds, report.modules[kSerial].stallSeconds + report.modules[kFew].stallSeconds);
}

TEST_P(StallAccountingTest, ExternalWaitsBeginWithTheirAcquireCall) {
  auto const acquires = callsOf(kGpu, Transition::Acquire);
  auto const waits = waitsOf(WaitKind::External, kGpu);
  ASSERT_EQ(acquires.size(), static_cast<std::size_t>(kEvents));
  ASSERT_EQ(waits.size(), acquires.size());
  for (auto const& acquire : acquires) {
    EXPECT_TRUE(std::any_of(waits.begin(), waits.end(), [&](WaitRecord const& w) {
      return w.lane == acquire.lane && w.begin == acquire.begin;
    }));
  }
}

// A lane that went straight on from its last event has no Idle wait: its
// source next() begins as that event ended.
TEST_P(StallAccountingTest, EachEventOfALaneFollowsAnIdleWaitThatEndsAtTheSourceOrItsLastEvent) {
  auto const nexts = callsOf(kSourceProducer, Transition::SourceNext);
  std::set<std::pair<unsigned, Clock::time_point>> idleEnds;  // (lane, end)
  std::map<unsigned, int> lastIdles;  // by lane: the wait from its last event to finding no more
  for (auto const& wait : recorder.waits) {
    if (wait.kind != WaitKind::Idle) continue;
    if (wait.event == EventId{}) {
      ++lastIdles[wait.lane];
      continue;
    }
    idleEnds.insert({wait.lane, wait.end});
    EXPECT_TRUE(std::any_of(nexts.begin(), nexts.end(), [&](CallRecord const& next) {
      return next.lane == wait.lane && next.begin == wait.end;
    }));
  }
  std::set<std::pair<unsigned, Clock::time_point>> eventEnds;  // (lane, when)
  for (auto const& end : recorder.ends) eventEnds.insert({end.lane, end.when});
  ASSERT_EQ(nexts.size(), static_cast<std::size_t>(kEvents));
  for (auto const& next : nexts) {
    EXPECT_TRUE(idleEnds.count({next.lane, next.begin}) + eventEnds.count({next.lane, next.begin}) > 0)
        << "lane " << next.lane << ": a source next() that neither an Idle wait nor the lane's last event precedes";
  }
  // Every lane ends once, even one that never got an event.
  EXPECT_EQ(lastIdles.size(), GetParam().lanes);
  for (auto [lane, count] : lastIdles) EXPECT_EQ(count, 1) << "lane " << lane;
  int started = 0;
  for (auto [lane, count] : recorder.started) started += count;
  EXPECT_EQ(started, kEvents);
  ASSERT_EQ(report.laneIdleSeconds.size(), GetParam().lanes);
  for (auto idle : report.laneIdleSeconds) EXPECT_GT(idle, 0.0);  // before its first event or after its last
}

TEST_P(StallAccountingTest, ThreadTimeBreakdownAddsUp) {
  auto const& time = report.threadTime;
  for (double part : {time.modulesSeconds, time.sourceSeconds, time.outputsSeconds, time.transitionsSeconds,
                      time.overheadSeconds, time.boundarySeconds, time.idleSeconds}) {
    EXPECT_GE(part, 0.0);
  }
  double const calls = time.modulesSeconds + time.sourceSeconds + time.outputsSeconds + time.transitionsSeconds;
  if (calls <= time.totalSeconds) {  // calls on the external work's own threads can outlast the job's threads
    EXPECT_NEAR(calls + time.overheadSeconds + time.boundarySeconds + time.idleSeconds, time.totalSeconds,
                1e-9 * time.totalSeconds + 1e-12);
  }
  // The output's productReady calls are in its own row, as in the outputs' time.
  EXPECT_DOUBLE_EQ(report.modules[kOut].totalSeconds, report.outputsSeconds);
  EXPECT_GE(observations.productReadyCalls.load(), kEvents);  // one per kept product
}

TEST_P(StallAccountingTest, TheMonitorsCostCountsEveryRecordItTimed) {
  EXPECT_EQ(totals.timedCalls, recorder.calls.size());
  EXPECT_EQ(totals.timedWaits, recorder.waits.size());
  EXPECT_EQ(report.monitor.calls, totals.timedCalls);
  EXPECT_EQ(report.monitor.waits, totals.timedWaits);
  EXPECT_EQ(report.monitor.events, static_cast<std::uint64_t>(kEvents));
  EXPECT_GT(report.monitor.seconds, 0.0);
}

TEST_P(StallAccountingTest, PathReportCountsEveryStep) {
  auto const json = paths.toJson();
  ASSERT_EQ(json.size(), info.paths.size());
  auto const selected = std::find_if(json.begin(), json.end(), [](auto const& path) { return path["name"] == "selected"; });
  ASSERT_NE(selected, json.end());
  EXPECT_EQ((*selected)["visited"], kEvents);
  EXPECT_EQ((*selected)["accepted"], kEvents / 2);
  EXPECT_EQ((*selected)["rejected"], kEvents / 2);
  EXPECT_EQ((*selected)["failed"], 0);
  auto const& modules = (*selected)["modules"];
  ASSERT_EQ(modules.size(), 2u);
  EXPECT_EQ(modules[0]["label"], "even");
  EXPECT_EQ(modules[0]["visited"], kEvents);
  EXPECT_EQ(modules[0]["rejected"], kEvents / 2);
  EXPECT_EQ(modules[1]["visited"], modules[0]["accepted"]);  // only what passed the filter goes on
  EXPECT_EQ(modules[1]["accepted"], kEvents / 2);
  for (auto const& path : json) {
    EXPECT_EQ(path["visited"].get<int>(), path["accepted"].get<int>() + path["rejected"].get<int>() + path["failed"].get<int>());
  }
  EXPECT_EQ(report.modules[kOut].events, static_cast<std::uint64_t>(kEvents));
}

TEST_P(StallAccountingTest, EventTimesAreOrderedAndNameTheSlowest) {
  auto const json = events.toJson();
  EXPECT_EQ(json["events"], kEvents);
  EXPECT_LE(json["median_s"].get<double>(), json["p90_s"].get<double>());
  EXPECT_LE(json["p90_s"].get<double>(), json["p99_s"].get<double>());
  EXPECT_LE(json["p99_s"].get<double>(), json["max_s"].get<double>());
  ASSERT_EQ(json["slowest"].size(), 5u);
  EXPECT_EQ(json["slowest"][0]["s"].get<double>(), json["max_s"].get<double>());
  for (std::size_t i = 1; i < json["slowest"].size(); ++i) {
    EXPECT_LE(json["slowest"][i]["s"].get<double>(), json["slowest"][i - 1]["s"].get<double>());
  }
}

std::vector<Shape> shapes() { return {{1, 1}, {1, 4}, {2, 8}, {4, 16}}; }

INSTANTIATE_TEST_SUITE_P(ThreadsAndLanes, StallAccountingTest, ::testing::ValuesIn(shapes()),
                         [](auto const& info) {
                           return std::to_string(info.param.threads) + "threads" + std::to_string(info.param.lanes) + "lanes";
                         });

// A lane that goes straight on to its next event in the same lumi was not
// idle: it has no Idle wait, and the source's next() begins as the lane's
// last event ended (the claim of the event is the source's time).
TEST(IdleWaitTest, ALaneThatGoesStraightOnToItsNextEventWasNotIdle) {
  constexpr std::size_t kEventsHere = 50;
  Observations observations;
  ObservedJob observed;
  auto config = job("count:events=" + std::to_string(kEventsHere));
  config.threads = 1;
  config.lanes = 1;
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  auto const summary = observed.run(std::move(config), testRegistry(observations));
  ASSERT_FALSE(summary.failed) << summary.error;
  auto const& recorder = observed.recorder;
  std::vector<Clock::time_point> reads;
  for (auto const& call : recorder.calls) {
    if (call.module == kSourceProducer && call.transition == Transition::SourceNext) reads.push_back(call.begin);
  }
  ASSERT_EQ(reads.size(), kEventsHere);
  ASSERT_EQ(recorder.ends.size(), kEventsHere);
  for (std::size_t e = 1; e < kEventsHere; ++e) EXPECT_EQ(reads[e], recorder.ends[e - 1].when) << "event " << e + 1;
  std::size_t idle = 0;
  for (auto const& wait : recorder.waits) idle += wait.kind == WaitKind::Idle && wait.event != EventId{};
  EXPECT_EQ(idle, 1u);  // the first event's, from the part's start
}

}  // namespace
}  // namespace lanes::test
