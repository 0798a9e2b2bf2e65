// The model's scheduling rules on small menus whose answer is known exactly:
// constant call times, so that each rate is a whole number of calls a second.

#include "lanes/model/Simulate.h"

#include <gtest/gtest.h>

#include <cmath>

#include "MenuBuilding.h"
#include "lanes/core/Exception.h"
#include "lanes/model/PredictionReport.h"

namespace lanes::model::test {
namespace {

constexpr double kExact = 1e-6;  // relative: what rounding leaves of an exact rate

double rateOf(Menu const& menu, Layout const& layout) { return simulate(menu, layout).eventsPerSecond(); }

ResourceUse const& resourceNamed(Prediction const& prediction, std::string const& name) {
  for (auto const& resource : prediction.resources) {
    if (resource.name == name) return resource;
  }
  throw Exception("no resource " + name);
}

class ThreadCounts : public ::testing::TestWithParam<unsigned> {};

TEST_P(ThreadCounts, AOneModuleOf10MsCapsAnyThreadCountAt100EventsPerSecond) {
  auto const menu = menuOf({moduleOf("histograms", 0.010, "one")});
  auto const prediction = simulate(menu, layoutOf(GetParam(), 0, 300));
  EXPECT_NEAR(prediction.eventsPerSecond(), 100.0, 100.0 * kExact);
  EXPECT_NEAR(resourceNamed(prediction, "histograms").utilization(prediction.wallSeconds), 1.0, kExact);
  if (GetParam() > 1) {
    EXPECT_TRUE(resourceNamed(prediction, "histograms").saturated(prediction.wallSeconds, kSaturated));
  }
  ASSERT_NE(bottleneck(prediction), nullptr);
  EXPECT_EQ(bottleneck(prediction)->name, "histograms");
}

TEST_P(ThreadCounts, AGlobalModuleScalesWithTheThreads) {
  auto const menu = menuOf({moduleOf("tracking", 0.010)});
  EXPECT_NEAR(rateOf(menu, layoutOf(GetParam(), 0, 64 * 10)), 100.0 * GetParam(), 100.0 * GetParam() * kExact);
}

TEST_P(ThreadCounts, ALimitedModuleAllowsItsLimitAtOnce) {
  auto const menu = menuOf({moduleOf("vertexing", 0.010, "limited", 2)});
  auto const threads = GetParam();
  EXPECT_NEAR(rateOf(menu, layoutOf(threads, 0, 400)), threads >= 2 ? 200.0 : 100.0, 200 * kExact);
}

TEST_P(ThreadCounts, ExternalWorkHoldsNoThread) {
  auto module = moduleOf("offload", 0.0);
  module.kind = "producer";
  module.externalWork = true;
  module.external = Distribution::constant(0.010);
  auto consumer = moduleOf("consumer", 0.0);
  consumer.prerequisites = {{false, 0, 0}};
  auto const menu = menuOf({module, consumer});
  // However few threads, every lane's wait runs at once.
  EXPECT_NEAR(rateOf(menu, layoutOf(GetParam(), 8, 800)), 800.0, 800 * kExact);
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadCounts, ::testing::Values(1u, 2u, 4u, 16u, 64u));

TEST(SimulationTest, TwoIndependent5MsModulesOnOneThreadGive100EventsPerSecond) {
  auto const menu = menuOf({moduleOf("a", 0.005), moduleOf("b", 0.005)});
  EXPECT_NEAR(rateOf(menu, layoutOf(1, 1, 200)), 100.0, 100 * kExact);
  EXPECT_NEAR(rateOf(menu, layoutOf(1, 4, 200)), 100.0, 100 * kExact);
  // Two threads run the two paths of one event side by side.
  EXPECT_NEAR(rateOf(menu, layoutOf(2, 1, 200)), 200.0, 200 * kExact);
}

TEST(SimulationTest, ALimitedModuleOfLimit2With4LanesStallsTwoCallsOfFour) {
  auto const menu = menuOf({moduleOf("vertexing", 0.010, "limited", 2)});
  auto const events = 400u;
  auto const prediction = simulate(menu, layoutOf(4, 4, events));
  EXPECT_NEAR(prediction.eventsPerSecond(), 200.0, 200 * kExact);
  // The first two calls run at once; every later one waits one call's time for a slot.
  EXPECT_NEAR(prediction.modules[0].stallSeconds, (events - 2) * 0.010, 1e-9);
  EXPECT_NEAR(resourceNamed(prediction, "vertexing").utilization(prediction.wallSeconds), 1.0, kExact);
  EXPECT_TRUE(resourceNamed(prediction, "vertexing").saturated(prediction.wallSeconds, kSaturated));
}

TEST(SimulationTest, AProducerRunsOnlyWhenSomethingNeedsIt) {
  auto needed = moduleOf("needed", 0.001);
  needed.kind = "producer";
  auto unused = moduleOf("unused", 0.001);
  unused.kind = "producer";
  auto consumer = moduleOf("consumer", 0.001);
  consumer.prerequisites = {{false, 0, 0}};
  auto const prediction = simulate(menuOf({needed, unused, consumer}), layoutOf(2, 2, 100));
  EXPECT_EQ(prediction.modules[0].events, 100u);
  EXPECT_EQ(prediction.modules[1].events, 0u);
  // The consumer's thread runs the producer inline, then the consumer: 2 ms an event on each of 2 threads.
  EXPECT_NEAR(prediction.eventsPerSecond(), 1000.0, 1000 * kExact);
}

TEST(SimulationTest, AFilterStopsItsPathAndTheOutputThatSelectsIt) {
  auto filter = moduleOf("trigger", 0.001);
  filter.kind = "filter";
  filter.acceptance = 0.25;
  auto after = moduleOf("after", 0.001);
  auto output = moduleOf("out", 0.001);
  output.kind = "output";
  output.output = true;
  auto menu = menuOf({filter, after, output});
  menu.paths = {{"HLT", {0, 1}}};
  menu.outputs = {{2, {0}}};
  auto const prediction = simulate(menu, layoutOf(1, 1, 20000));
  auto const written = static_cast<double>(prediction.modules[2].events);
  EXPECT_NEAR(written / 20000, 0.25, 0.02);
  EXPECT_EQ(prediction.modules[1].events, prediction.modules[2].events);
  EXPECT_EQ(prediction.paths[0].accepted + prediction.paths[0].rejectedAt[0], 20000u);
}

TEST(SimulationTest, ASharedSourceReadsOneEventAtATime) {
  auto menu = menuOf({moduleOf("cheap", 0.0)});
  menu.replicatedSource = false;
  menu.sourceReads = SourceReads::WithTheEvent;
  menu.sourceNext = Distribution::constant(0.010);
  auto const prediction = simulate(menu, layoutOf(16, 0, 200));
  EXPECT_NEAR(prediction.eventsPerSecond(), 100.0, 100 * kExact);
  EXPECT_EQ(bottleneck(prediction)->kind, "source");
}

TEST(SimulationTest, ProcessesRunSideBySideAndTheDistributionDecidesWhoEndsLast) {
  auto const menu = menuOf({moduleOf("work", 0.010)});
  auto layout = layoutOf(1, 1, 20);
  layout.processes = 2;
  EXPECT_NEAR(rateOf(menu, layout), 200.0, 200 * kExact);
  // Three processes: chunks of 10 leave the third without an event (20 events in 100 ms) ...
  layout.processes = 3;
  EXPECT_NEAR(rateOf(menu, layout), 200.0, 200 * kExact);
  // ... where round-robin gives each 7, 7 and 6 (20 events in 70 ms).
  layout.roundRobin = true;
  EXPECT_NEAR(rateOf(menu, layout), 20 / 0.070, 20 / 0.070 * kExact);
}

TEST(SimulationTest, BusyCallsShareFewerCoresThanThreadsAndSleepingOnesDoNot) {
  auto busy = moduleOf("busy", 0.010);
  auto layout = layoutOf(4, 4, 400);
  layout.cores = 2;
  EXPECT_NEAR(rateOf(menuOf({busy}), layout), 200.0, 200 * kExact);
  busy.sleeps = true;
  EXPECT_NEAR(rateOf(menuOf({busy}), layout), 400.0, 400 * kExact);
}

TEST(SimulationTest, TheOverheadBetweenCallsTakesTheCoresOfSleepingCalls) {
  auto sleeper = moduleOf("sleeper", 0.010);
  sleeper.sleeps = true;
  auto menu = menuOf({sleeper});
  menu.overheadPerCall = 0.001;  // a core's millisecond before each call, the source's too
  auto layout = layoutOf(2, 2, 200);
  layout.cores = 2;
  // As many threads as cores: 1 + 1 + 10 ms an event on each.
  EXPECT_NEAR(rateOf(menu, layout), 2 / 0.012, 2 / 0.012 * kExact);
  // 64 threads share the 2 cores for their 2 ms each (64 ms in all), then all sleep 10 ms: equal shares keep
  // them in step, 64 events every 74 ms, below the cores' 1000 a second.
  layout = layoutOf(64, 64, 64 * 20);
  layout.cores = 2;
  EXPECT_NEAR(rateOf(menu, layout), 64 / 0.074, 64 / 0.074 * kExact);
}

TEST(SimulationTest, TheSameSeedGivesTheSamePredictionAndAnotherADifferentOne) {
  auto module = moduleOf("varied", 0.0);
  LogHistogram histogram;
  for (int i = 1; i <= 100; ++i) histogram.add(0.001 * i);
  module.event = Distribution::measured(histogram, 0.0505);
  auto const menu = menuOf({module});
  auto layout = layoutOf(3, 5, 500);
  auto const first = simulate(menu, layout).wallSeconds;
  EXPECT_EQ(simulate(menu, layout).wallSeconds, first);
  layout.seed = 2;
  EXPECT_NE(simulate(menu, layout).wallSeconds, first);
}

// Two modules on paths of their own, each 10 ms in one event of two and free in the other: replayed as the
// trace recorded them (slow together), an event takes 10 ms or nothing; drawn on their own, 7.5 ms on average.
TEST(SimulationTest, RecordedEventsKeepTheirCallsTogether) {
  LogHistogram histogram;
  histogram.add(0.010, 1);
  histogram.add(1e-9, 1);
  auto a = moduleOf("a", 0.0), b = moduleOf("b", 0.0);
  a.event = b.event = Distribution::measured(histogram, 0.005);
  auto menu = menuOf({a, b});
  auto const drawn = rateOf(menu, layoutOf(2, 1, 4000));
  EXPECT_NEAR(drawn, 1 / 0.0075, 1 / 0.0075 * 0.03);
  menu.recorded = {{{0.010f, 0.010f}, {NAN, NAN}}, {{0.0f, 0.0f}, {NAN, NAN}}};
  EXPECT_NEAR(rateOf(menu, layoutOf(2, 1, 4000)), 200.0, 200 * 1e-5);
}

TEST(SimulationTest, RefusesALayoutThatCannotRun) {
  auto const menu = menuOf({moduleOf("m", 0.001)});
  EXPECT_THROW(simulate(menu, layoutOf(0, 0, 10)), Exception);
  EXPECT_THROW(simulate(menu, layoutOf(1, 0, 0)), Exception);
  EXPECT_THROW(simulate(menu, layoutOf(100000, 0, 10)), Exception);
  EXPECT_THROW(simulate(menuOf(std::vector<MenuModule>(1000, moduleOf("m", 0.001))), layoutOf(1000, 64000, 10)), Exception);
}

TEST(SimulationTest, TheFirstResourceToSaturateAlongACurveIsNamedWithItsPoint) {
  auto menu = menuOf({moduleOf("tracking", 0.004)});
  menu.replicatedSource = false;
  menu.sourceReads = SourceReads::WithTheEvent;
  menu.sourceNext = Distribution::constant(0.001);
  std::vector<Prediction> curve;
  for (unsigned threads : {1u, 2u, 4u, 8u}) curve.push_back(simulate(menu, layoutOf(threads, 0, 800)));
  // 5 ms an event, 1 ms of it the shared source's: 200 events/s a thread, at most 1000.
  EXPECT_NEAR(curve[2].eventsPerSecond(), 800.0, 8.0);
  EXPECT_NEAR(curve[3].eventsPerSecond(), 1000.0, 10.0);
  auto const first = firstSaturation(curve);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->resource.kind, "source");
  EXPECT_EQ(curve[first->point].layout.threads, 8u);
}

// A `one` module's queue holds its slot for the call only: what the call's
// end lets go on (the rest of the event, the lane's next event) is the
// queue's continuation. 4 ms of tracking and a 1 ms `one` module: 200 events/s
// at 1 thread, 400 at 2, and the module's 1000 at 8.
TEST(SimulationTest, AOneModuleHoldsItsSlotForItsCallOnly) {
  auto const menu = menuOf({moduleOf("tracking", 0.004), moduleOf("histograms", 0.001, "one")});
  std::vector<Prediction> curve;
  for (unsigned threads : {1u, 2u, 8u}) curve.push_back(simulate(menu, layoutOf(threads, 0, 800)));
  EXPECT_NEAR(curve[0].eventsPerSecond(), 200.0, 2.0);
  EXPECT_NEAR(curve[1].eventsPerSecond(), 400.0, 4.0);
  EXPECT_NEAR(curve[2].eventsPerSecond(), 1000.0, 20.0);
  auto const first = firstSaturation(curve);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->resource.name, "histograms");
  EXPECT_EQ(curve[first->point].layout.threads, 8u);
  EXPECT_GT(resourceNamed(curve[2], "histograms").utilization(curve[2].wallSeconds), 0.95);
}

}  // namespace
}  // namespace lanes::model::test
