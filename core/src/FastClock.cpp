#include "lanes/core/FastClock.h"

#include <fstream>
#include <limits>
#include <string>
#include <thread>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace lanes {

namespace {

using Clock = FastClock::Clock;

struct Reading {
  std::uint64_t ticks = 0;
  Clock::time_point time{};
};

#if defined(__x86_64__)

// The counter ticks at a constant rate in every power state (CPUID
// 0x80000007, EDX bit 8), and the kernel found it synchronised across CPUs
// (it uses it as its clocksource, so steady_clock is this counter, scaled).
bool ticksStandInForSteadyClock() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) || !(edx & (1u << 8))) return false;
  std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  return source >> name && name == "tsc";
}

// A tick count and the steady_clock time at which it was read: the middle of
// the narrowest of a few steady_clock brackets (a preempted try is wide).
Reading read() {
  Reading best;
  auto narrowest = Clock::duration::max();
  for (int attempt = 0; attempt < 7; ++attempt) {
    auto const before = Clock::now();
    auto const ticks = __builtin_ia32_rdtsc();
    auto const after = Clock::now();
    if (after - before < narrowest) {
      narrowest = after - before;
      best = {ticks, before + (after - before) / 2};
    }
  }
  return best;
}

// Taken as the library is loaded: calibrations measure from here, so that a
// job that starts late in a process needs no waiting.
Reading const processStart = ticksStandInForSteadyClock() ? read() : Reading{};

#endif

}  // namespace

FastClock FastClock::calibrated() {
  FastClock clock;
#if defined(__x86_64__)
  if (processStart.ticks == 0) return clock;
  auto const youngest = processStart.time + kMinimumBaseline;
  if (Clock::now() < youngest) std::this_thread::sleep_until(youngest);
  auto const now = read();
  auto const ticks = now.ticks - processStart.ticks;
  auto const nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time - processStart.time).count();
  if (ticks == 0 || nanoseconds <= 0) return clock;
  clock.nsPerTick_ = static_cast<std::uint64_t>((static_cast<unsigned __int128>(nanoseconds) << kFractionBits) / ticks);
  clock.originTicks_ = now.ticks;
  clock.originTime_ = now.time;
#endif
  return clock;
}

}  // namespace lanes
