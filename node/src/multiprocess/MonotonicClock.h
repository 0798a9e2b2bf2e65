#pragma once
// One clock for every process of a job (CLOCK_MONOTONIC), so that the times
// workers report compare with their parent's.

#include <chrono>
#include <cstdint>

namespace lanes::node {

using MonotonicClock = std::chrono::steady_clock;

inline std::int64_t monotonicNanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(MonotonicClock::now().time_since_epoch()).count();
}

}  // namespace lanes::node
