// EventProcessor::laneActivity(): empty unless a watchdog asked for it, and
// safe to read from another thread while every lane runs.

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "TestPlugins.h"
#include "lanes/core/EventProcessor.h"

namespace lanes::test {
namespace {

JobConfig chain() {
  auto config = job("count:events=3000");
  config.threads = 4;
  config.lanes = 4;
  config.modules.push_back({"a", PluginSpec::parse("add:in=n")});
  config.modules.push_back({"b", PluginSpec::parse("stream-add:in=a")});
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=b"), {}});
  return config;
}

TEST(LaneActivityTest, NothingUnlessWatched) {
  Observations observations;
  EventProcessor processor(chain(), testRegistry(observations));
  EXPECT_TRUE(processor.laneActivity().empty());
  EXPECT_FALSE(processor.run().failed);
  EXPECT_TRUE(processor.laneActivity().empty());
}

TEST(LaneActivityTest, ReadWhileEveryLaneRuns) {
  Observations observations;
  EventProcessor processor(chain(), testRegistry(observations));
  processor.watchLanes();
  auto const modules = processor.info().modules.size();
  std::atomic<bool> done{false};
  std::atomic<int> busySeen{0}, bad{0};
  std::thread reader([&] {
    while (!done.load()) {
      auto const activity = processor.laneActivity();
      if (activity.size() != 4) ++bad;
      for (auto const& lane : activity) {
        if (lane.module && *lane.module >= modules) ++bad;
        if (lane.busy && (lane.event.event < 1 || lane.event.event > 3000)) ++bad;
        busySeen += lane.busy;
      }
    }
  });
  auto const summary = processor.run();
  done.store(true);
  reader.join();
  EXPECT_FALSE(summary.failed);
  EXPECT_EQ(summary.eventsProcessed, 3000u);
  EXPECT_EQ(bad.load(), 0);
  for (auto const& lane : processor.laneActivity()) {
    EXPECT_FALSE(lane.busy) << "lane " << lane.lane;
    EXPECT_FALSE(lane.module) << "lane " << lane.lane;
  }
}

}  // namespace
}  // namespace lanes::test
