#pragma once
// CPU time and peak memory of this process, as the operating system counts them.

#include <cstdint>

namespace lanes {

// Immutable value type: one sample, or the difference between two.
struct ResourceUsage {
  double cpuUserSeconds = 0;
  double cpuSystemSeconds = 0;
  std::uint64_t peakRssBytes = 0;  // high-water mark of the resident set

  // The process's CPU time since it started (all threads) and its peak RSS
  // (VmHWM from /proc/self/status, else getrusage's ru_maxrss).
  static ResourceUsage sample();

  // CPU time spent between `earlier` and this sample; the peak RSS is this
  // sample's, a high-water mark having no difference.
  ResourceUsage since(ResourceUsage const& earlier) const;
};

}  // namespace lanes
