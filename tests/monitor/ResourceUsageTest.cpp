#include "lanes/monitor/ResourceUsage.h"

#include <memory>

#include <gtest/gtest.h>

namespace lanes {
namespace {

TEST(ResourceUsage, SampleSeesThisProcess) {
  auto const usage = ResourceUsage::sample();
  EXPECT_GE(usage.cpuUserSeconds, 0.0);
  EXPECT_GE(usage.cpuSystemSeconds, 0.0);
  EXPECT_GT(usage.peakRssBytes, 0u);
}

// The kernel's RSS counters are approximate (per-thread caches synced now and
// then), so the peak is compared with a generous margin, never exactly.
TEST(ResourceUsage, PeakRssCoversMemoryOnceTouched) {
  std::size_t const bytes = 64u << 20;
  auto buffer = std::make_unique<char[]>(bytes);
  char volatile* const pages = buffer.get();
  for (std::size_t i = 0; i < bytes; i += 4096) pages[i] = 1;  // touch every page: it is resident now
  buffer.reset();
  EXPECT_GE(ResourceUsage::sample().peakRssBytes, bytes);
}

TEST(ResourceUsage, SinceSubtractsCpuAndKeepsThePeak) {
  ResourceUsage const before{1.5, 0.25, 100};
  ResourceUsage const after{4.0, 1.0, 300};
  auto const job = after.since(before);
  EXPECT_DOUBLE_EQ(job.cpuUserSeconds, 2.5);
  EXPECT_DOUBLE_EQ(job.cpuSystemSeconds, 0.75);
  EXPECT_EQ(job.peakRssBytes, 300u);
}

TEST(ResourceUsage, CpuTimeNeverDecreases) {
  auto const first = ResourceUsage::sample();
  auto const second = ResourceUsage::sample();
  EXPECT_GE(second.cpuUserSeconds, first.cpuUserSeconds);
  EXPECT_GE(second.cpuSystemSeconds, first.cpuSystemSeconds);
}

}  // namespace
}  // namespace lanes
