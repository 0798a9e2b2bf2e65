// EventProcessor::laneActivity(): empty unless a watchdog asked for it, and
// safe to read from another thread while every lane runs.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
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

// A shared file source whose read of event 1 waits until it is let go (or
// 30 s pass: then the test fails), and notes whether it was.
class HeldReadSource : public Source {
 public:
  HeldReadSource(std::atomic<bool>& letGo, std::atomic<bool>& wasLetGo) : letGo_(letGo), wasLetGo_(wasLetGo) {
    declare<int>("n");
  }
  bool next(SourceEvent& event) override {
    if (next_ == 3) return false;
    event.id = {1, 1, ++next_};
    return true;
  }
  void read(SourceEvent const& event, std::size_t, ProductSlot& slot) override {
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (event.id.event == 1 && !letGo_.load() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    if (event.id.event == 1) wasLetGo_.store(letGo_.load());
    slot.emplace(static_cast<int>(event.id.event), sizeof(int));
  }

 private:
  std::atomic<bool>& letGo_;
  std::atomic<bool>& wasLetGo_;
  std::uint64_t next_ = 0;
};

// A shared source reads an event's products as it fetches it, before any
// module runs: a watchdog sees the lane busy with that event meanwhile, so
// a read that hangs is named with its event.
TEST(LaneActivityTest, ASharedSourcesReadIsTheEventsActivity) {
  Observations observations;
  auto registry = testRegistry(observations);
  std::atomic<bool> letGo{false}, wasLetGo{false};
  registry.addSource({"held", ""}, [&](Options const&) { return std::make_unique<HeldReadSource>(letGo, wasLetGo); });
  auto config = job("held");
  config.threads = 2;
  config.lanes = 1;
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  EventProcessor processor(config, registry);
  processor.watchLanes();
  std::thread watcher([&] {
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!letGo.load() && std::chrono::steady_clock::now() < deadline) {
      auto const activity = processor.laneActivity();
      if (!activity.empty() && activity[0].busy && activity[0].event.event == 1) letGo.store(true);
    }
  });
  auto const summary = processor.run();
  watcher.join();
  EXPECT_TRUE(wasLetGo.load()) << "the lane did not show event 1 while its read waited";
  EXPECT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(observations.checksum, 1 + 2 + 3);
}

}  // namespace
}  // namespace lanes::test
