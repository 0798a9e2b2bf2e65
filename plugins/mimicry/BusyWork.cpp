#include "mimicry/BusyWork.h"

#include <time.h>

#include <cstdint>

namespace lanes::mimicry {
namespace {

// About 2 µs of dependent integer work on a current core: the CPU clock is
// read (a system call) once per chunk, not once per step.
constexpr int kStepsPerChunk = 1024;

std::uint64_t churn(std::uint64_t state) {
  for (int i = 0; i < kStepsPerChunk; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
  }
  return state;
}

}  // namespace

double threadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

void burnCpu(double seconds) {
  if (!(seconds > 0)) return;
  double const end = threadCpuSeconds() + seconds;
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  do {
    state = churn(state);
  } while (threadCpuSeconds() < end);
  // The result escapes through a volatile store, so the work must happen.
  volatile std::uint64_t sink = state;
  (void)sink;
}

}  // namespace lanes::mimicry
