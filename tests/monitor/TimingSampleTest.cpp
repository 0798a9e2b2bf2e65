// Sampled timing (JobConfig::timingSample) on real jobs under contention:
// many lanes on a few threads, a `one` module, external work, a filter on a
// path. Every call is counted; only one event in N of each lane is timed, and
// the statistics scale its sums to all calls.

#include <algorithm>
#include <map>
#include <set>
#include <string>

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
  unsigned sample;
};

constexpr int kEvents = 60;
constexpr unsigned kGpu = 0, kSerial = 1, kEven = 2, kOut = 3;

class TimingSampleTest : public ::testing::TestWithParam<Shape>, protected ObservedJob {
 protected:
  void SetUp() override {
    auto config = job("count:events=" + std::to_string(kEvents));
    config.threads = GetParam().threads;
    config.lanes = GetParam().lanes;
    config.timingSample = GetParam().sample;
    config.modules = {{"gpu", PluginSpec::parse("external")},
                      {"serial", PluginSpec::parse("one-probe")},
                      {"even", PluginSpec::parse("even:in=n")}};
    config.paths = {{"selected", {"even", "serial"}}};
    config.outputs.push_back({"out", PluginSpec::parse("collect:in=gpu"), {}});
    auto const summary = run(std::move(config), testRegistry(observations));
    ASSERT_FALSE(summary.failed) << summary.error;
    totals = statistics.totals();
    report = RunReport::build(info, statistics, summary, std::chrono::seconds(1), {1.0, 0.0, 0});
  }

  // The events whose output call was timed, and how many events each lane began.
  std::set<std::string> timedEvents() const {
    std::set<std::string> timed;
    for (auto const& call : recorder.calls) {
      if (call.module == kOut && call.transition == Transition::Event && call.timed) timed.insert(call.event.str());
    }
    return timed;
  }
  // The source's records (next() and batch reads): all, and the timed ones.
  std::pair<std::uint64_t, std::uint64_t> sourceRecords() const {
    std::pair<std::uint64_t, std::uint64_t> counts;
    for (auto const& call : recorder.calls) {
      if (call.module != kSourceProducer) continue;
      ++counts.first;
      counts.second += call.timed;
    }
    return counts;
  }
  std::map<unsigned, int> const& eventsByLane() const { return recorder.started; }

  Observations observations;
  ModuleStatistics::Totals totals;
  RunReport report;
};

TEST_P(TimingSampleTest, EveryCallIsCountedAndOneEventInNOfEachLaneTimed) {
  unsigned const sample = GetParam().sample;
  EXPECT_EQ(info.timingSample, sample);
  EXPECT_EQ(totals.timingSample, sample);
  auto const [sourceCalls, sourceTimed] = sourceRecords();
  EXPECT_EQ(totals.source.calls, sourceCalls);
  EXPECT_EQ(totals.source.timed, sourceTimed);
  EXPECT_LT(sourceTimed, sample == 1 ? sourceCalls + 1 : sourceCalls);
  EXPECT_EQ(totals.modules[kGpu].calls, 2u * kEvents);  // acquire and produce
  EXPECT_EQ(totals.modules[kEven].calls, static_cast<std::uint64_t>(kEvents));
  EXPECT_EQ(totals.modules[kSerial].calls, static_cast<std::uint64_t>(kEvents / 2));
  EXPECT_EQ(totals.modules[kOut].calls, static_cast<std::uint64_t>(kEvents));
  // A lane times its 1st, (N+1)th, ... event.
  std::uint64_t expected = 0;
  for (auto [lane, count] : eventsByLane()) expected += (count + sample - 1) / sample;
  auto const timed = timedEvents();
  EXPECT_EQ(timed.size(), expected);
  EXPECT_EQ(totals.modules[kOut].timed, expected);
  EXPECT_NEAR(static_cast<double>(report.monitor.events), static_cast<double>(expected), GetParam().lanes);  // estimated from the source
  EXPECT_EQ(report.monitor.timingSample, sample);
}

TEST_P(TimingSampleTest, AnUntimedEventReadsNoClockAndReportsNoWait) {
  auto const timed = timedEvents();
  for (auto const& call : recorder.calls) {
    if (call.lane == kNoLane) continue;  // a run or lumi transition: no event's, and timed in every job
    // A source's next() is recorded before its event begins, under the lane's last one.
    bool const beforeItsEvent = call.module == kSourceProducer && call.transition == Transition::SourceNext;
    if (!beforeItsEvent) EXPECT_EQ(call.timed, timed.count(call.event.str()) == 1) << call.event.str();
    if (call.timed) {
      EXPECT_NE(call.begin, kUntimed);
      EXPECT_LE(call.begin, call.end);
    } else {
      EXPECT_EQ(call.begin, kUntimed);
      EXPECT_EQ(call.end, kUntimed);
    }
  }
  for (auto const& wait : recorder.waits) {
    if (wait.event == EventId{}) continue;  // a lane's last Idle wait, after its events
    EXPECT_EQ(timed.count(wait.event.str()), 1u) << toString(wait.kind) << " " << wait.event.str();
    EXPECT_NE(wait.begin, kUntimed);
  }
  ASSERT_EQ(recorder.ends.size(), static_cast<std::size_t>(kEvents));
  for (auto const& end : recorder.ends) EXPECT_EQ(end.when != kUntimed, timed.count(end.id.str()) == 1) << end.id.str();
  // The event times are those of the timed events; the paths count every event.
  EXPECT_EQ(events.toJson().at("events"), timed.size());
  EXPECT_EQ(paths.toJson().at(0).at("visited"), kEvents);
}

TEST_P(TimingSampleTest, TimesAreScaledFromTheTimedCalls) {
  ASSERT_GT(totals.modules[kGpu].timed, 0u);
  EXPECT_GT(totals.waits[kGpu].external, Clock::duration::zero());
  if (GetParam().sample > 1) {
    Clock::duration timedSum{};
    for (auto const& call : recorder.calls) {
      if (call.module == kOut && call.timed && call.lane != kNoLane) timedSum += call.end - call.begin;
    }
    auto const& out = totals.modules[kOut];
    double const expected = std::chrono::duration<double>(timedSum).count() * static_cast<double>(out.calls) / out.timed;
    EXPECT_NEAR(out.seconds(), expected, 1e-9 + 1e-6 * expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, TimingSampleTest,
                         ::testing::Values(Shape{1, 1, 1}, Shape{1, 1, 7}, Shape{2, 4, 3}, Shape{4, 8, 5}, Shape{2, 8, 100}),
                         [](auto const& info) {
                           return std::to_string(info.param.threads) + "threads" + std::to_string(info.param.lanes) +
                                  "lanes1in" + std::to_string(info.param.sample);
                         });

}  // namespace
}  // namespace lanes::test
