// EventProcessor in steps (beginJob, process parts, endJob), as the workers
// of a multi-process job use it: a part processes exactly the events its
// dispenser names, from a shared source or a replicated one.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "TestPlugins.h"
#include "lanes/core/Exception.h"
#include "lanes/core/Module.h"

namespace lanes::test {
namespace {

// Hands out a fixed, increasing list of ordinals; thread-safe.
class ListDispenser : public EventDispenser {
 public:
  explicit ListDispenser(std::vector<std::uint64_t> ordinals) : ordinals_(std::move(ordinals)) {}
  std::optional<std::uint64_t> next() override {
    std::lock_guard lock(mutex_);
    if (next_ == ordinals_.size()) return std::nullopt;
    return ordinals_[next_++];
  }

 private:
  std::mutex mutex_;
  std::vector<std::uint64_t> ordinals_;
  std::size_t next_ = 0;
};

JobConfig collectingJob(std::string const& source, unsigned threads) {
  auto config = job(source);
  config.threads = threads;
  config.lanes = 3;
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  return config;
}

class ProcessPartTest : public ::testing::TestWithParam<std::tuple<std::string, unsigned>> {};

TEST_P(ProcessPartTest, APartProcessesExactlyTheEventsItsDispenserNames) {
  auto const& [source, threads] = GetParam();
  Observations observations;
  EventProcessor processor(collectingJob(source, threads), testRegistry(observations));
  processor.beginJob();
  ListDispenser first({0, 1, 2});
  auto const before = processor.process({"prefork", &first, 1});
  EXPECT_EQ(before.eventsProcessed, 3u);
  ListDispenser rest({4, 7, 8, 15, 19});  // events are numbered ordinal + 1
  auto const summary = processor.process({"worker-0", &rest, 0});
  processor.endJob();
  EXPECT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 5u);
  EXPECT_EQ(observations.outputWrites.load(), 8);
  EXPECT_EQ(observations.checksum.load(), 1 + 2 + 3 + 5 + 8 + 9 + 16 + 20);
}

TEST_P(ProcessPartTest, APartPastTheEndOfTheSourceStopsThere) {
  auto const& [source, threads] = GetParam();
  Observations observations;
  EventProcessor processor(collectingJob(source, threads), testRegistry(observations));
  processor.beginJob();
  ListDispenser beyond({18, 19, 20, 21});
  auto const summary = processor.process({"worker-0", &beyond, 0});
  processor.endJob();
  EXPECT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 2u);
}

INSTANTIATE_TEST_SUITE_P(SharedAndReplicated, ProcessPartTest,
                         ::testing::Combine(::testing::Values("count:events=20,shared=true", "count:events=20"),
                                            ::testing::Values(1u, 2u)));

// Counts the afterFork() calls it and its copies (one per lane, unless
// shared) receive; yields no event.
class ForkCountingSource : public Source {
 public:
  ForkCountingSource(bool shared, std::shared_ptr<std::atomic<int>> calls) : shared_(shared), calls_(std::move(calls)) {
    declare<int>("n");
  }
  bool next(SourceEvent&) override { return false; }
  bool at(std::uint64_t, SourceEvent&) override { return false; }
  void read(SourceEvent const&, std::size_t, ProductSlot&) override {}
  std::unique_ptr<Source> replicate() const override {
    return shared_ ? nullptr : std::make_unique<ForkCountingSource>(shared_, calls_);
  }
  void afterFork() override { ++*calls_; }

 private:
  bool shared_;
  std::shared_ptr<std::atomic<int>> calls_;
};

TEST(ProcessPartFork, AfterForkReachesTheSourceAndEveryLanesCopy) {
  for (bool shared : {true, false}) {
    Observations observations;
    auto registry = testRegistry(observations);
    auto calls = std::make_shared<std::atomic<int>>(0);
    registry.addSource({"fork-counting", ""},
                       [&](Options const&) { return std::unique_ptr<Source>(new ForkCountingSource(shared, calls)); });
    EventProcessor processor(collectingJob("fork-counting", 2), registry);  // 3 lanes
    processor.afterFork();
    EXPECT_EQ(calls->load(), shared ? 1 : 1 + 3) << (shared ? "shared" : "replicated");
  }
}

TEST(ProcessPartOrder, StepsOutOfOrderThrow) {
  Observations observations;
  EventProcessor processor(collectingJob("count:events=5", 1), testRegistry(observations));
  EXPECT_THROW(processor.process({}), Exception);
  EXPECT_THROW(processor.endJob(), Exception);
  processor.beginJob();
  EXPECT_THROW(processor.beginJob(), Exception);
  processor.endJob();
  EXPECT_THROW(processor.process({}), Exception);
}

TEST(ProcessPartOrder, ASharedSourceCannotGoBack) {
  Observations observations;
  EventProcessor processor(collectingJob("count:events=20,shared=true", 1), testRegistry(observations));
  processor.beginJob();
  ListDispenser forward({5});
  EXPECT_FALSE(processor.process({"a", &forward, 0}).failed);
  ListDispenser backward({2});
  auto const summary = processor.process({"b", &backward, 0});
  EXPECT_TRUE(summary.failed);
  EXPECT_NE(summary.error.find("only moves forward"), std::string::npos) << summary.error;
  processor.endJob();
}

TEST(PartPath, ThePartGoesBeforeTheExtension) {
  EXPECT_EQ(partPath("out.root", ""), "out.root");
  EXPECT_EQ(partPath("out.root", "worker-2"), "out.worker-2.root");
  EXPECT_EQ(partPath("dir.d/out", "worker-2"), "dir.d/out.worker-2");
  EXPECT_EQ(partPath("a/b.c/out.tar.gz", "prefork"), "a/b.c/out.tar.prefork.gz");
  EXPECT_EQ(partPath(".hidden", "w"), ".hidden.w");
}

}  // namespace
}  // namespace lanes::test
