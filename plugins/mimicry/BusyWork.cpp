#include "mimicry/BusyWork.h"

#include <time.h>

#include <cstdint>

namespace lanes::mimicry {
namespace {

// About 2 µs of dependent integer work on a current core: the CPU clock is
// read (a system call) once per chunk, not once per step.
constexpr std::uint64_t kStepsPerChunk = 1024;

// Below this, a burn runs a counted number of steps instead of watching the
// CPU clock: two clock reads and a whole chunk would cost more than asked
// (a waiter per small product asks for nanoseconds).
constexpr double kCountedBelow = 50e-6;

std::uint64_t churn(std::uint64_t state, std::uint64_t steps = kStepsPerChunk) {
  for (std::uint64_t i = 0; i < steps; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
  }
  return state;
}

// The result escapes through a volatile store, so the work must happen.
void keep(std::uint64_t state) {
  volatile std::uint64_t sink = state;
  (void)sink;
}

// Steps of churn per CPU second, measured once (about a millisecond).
double stepsPerSecond() {
  static double const rate = [] {
    constexpr std::uint64_t chunks = 500;
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    double const begin = threadCpuSeconds();
    for (std::uint64_t i = 0; i < chunks; ++i) state = churn(state);
    double const elapsed = threadCpuSeconds() - begin;
    keep(state);
    return static_cast<double>(chunks * kStepsPerChunk) / (elapsed > 0 ? elapsed : 1e-3);
  }();
  return rate;
}

}  // namespace

double threadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

void burnCpu(double seconds) {
  if (!(seconds > 0)) return;
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  if (seconds < kCountedBelow) {
    keep(churn(state, static_cast<std::uint64_t>(seconds * stepsPerSecond()) + 1));
    return;
  }
  double const end = threadCpuSeconds() + seconds;
  do {
    state = churn(state);
  } while (threadCpuSeconds() < end);
  keep(state);
}

}  // namespace lanes::mimicry
