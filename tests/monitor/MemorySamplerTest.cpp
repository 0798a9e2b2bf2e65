// In lanes_monitor_json_tests (it reads the sampler's JSON).
#include "lanes/monitor/MemorySampler.h"

#include <atomic>

#include <gtest/gtest.h>

#include "lanes/monitor/ResourceUsage.h"

namespace lanes {
namespace {

double cpuSeconds() {
  auto const usage = ResourceUsage::sample();
  return usage.cpuUserSeconds + usage.cpuSystemSeconds;
}

// Burns CPU on this thread until the sampler holds `samples` samples.
void spinUntil(MemorySampler const& sampler, std::size_t samples) {
  std::atomic<double> sink{0};
  while (sampler.toJson()["samples"].size() < samples) {
    for (int i = 0; i < 100000; ++i) sink.store(sink.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
}

TEST(MemorySampler, SamplesActivityWithTheMemory) {
  std::atomic<unsigned> inFlight{3};
  auto const before = cpuSeconds();
  MemorySampler sampler(std::chrono::milliseconds(1), 512, [&inFlight] { return inFlight.load(); });
  spinUntil(sampler, 6);
  inFlight = 5;
  sampler.stop();
  auto const used = cpuSeconds() - before;
  auto const memory = sampler.toJson()["samples"];
  auto const activity = sampler.activityJson();
  ASSERT_EQ(activity["samples"].size(), memory.size() - 1) << "an interval ends at every sample but the first";
  double busySeconds = 0;
  for (std::size_t i = 0; i < activity["samples"].size(); ++i) {
    auto const& sample = activity["samples"][i];
    EXPECT_EQ(sample[0], memory[i + 1][0]) << "the same times as the memory's";
    EXPECT_GE(sample[1].get<double>(), 0.0);
    busySeconds += sample[1].get<double>() * (memory[i + 1][0].get<double>() - memory[i][0].get<double>());
  }
  EXPECT_EQ(activity["samples"].front()[2], 3u);
  EXPECT_EQ(activity["samples"].back()[2], 5u) << "the last sample, taken by stop()";
  EXPECT_GT(busySeconds, 0.0) << "this thread spun";
  EXPECT_LE(busySeconds, used + 1e-3) << "no more CPU than the process used";
  EXPECT_EQ(activity["interval_s"], sampler.toJson()["interval_s"]);
}

TEST(MemorySampler, WithoutAProbeCountsNoEvents) {
  MemorySampler sampler(std::chrono::milliseconds(1));
  spinUntil(sampler, 3);
  sampler.stop();
  auto const activity = sampler.activityJson();  // held: a range-for over a temporary's member would read freed memory
  for (auto const& sample : activity["samples"]) EXPECT_EQ(sample[2], 0u);
}

TEST(MemorySampler, HalvingKeepsTheActivityConsistent) {
  MemorySampler sampler(std::chrono::milliseconds(1), 4, [] { return 1u; });
  spinUntil(sampler, 3);
  sampler.stop();
  auto const memory = sampler.toJson()["samples"];
  auto const activity = sampler.activityJson()["samples"];
  EXPECT_LE(memory.size(), 4u);
  ASSERT_EQ(activity.size(), memory.size() - 1);
  for (std::size_t i = 0; i < activity.size(); ++i) EXPECT_EQ(activity[i][0], memory[i + 1][0]);
}

}  // namespace
}  // namespace lanes
