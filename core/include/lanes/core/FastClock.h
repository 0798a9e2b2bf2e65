#pragma once
// steady_clock time for the price of one read of the CPU's time-stamp counter
// (TSC). The monitor times every module call: steady_clock::now() reads the
// same counter through the vDSO, ordered by a fence and scaled under a
// sequence lock, and costs about twice as much.
//
// The counter stands in for steady_clock only where the kernel itself trusts
// it (an invariant TSC that Linux uses as its clocksource, on x86-64); now() is
// steady_clock::now() everywhere else. Its ticks are converted with a
// calibration against steady_clock over the process's life so far (at least
// 10 ms); on the development machine the two clocks then stayed within 3 ns
// of each other over 4 s.
//
// A read is not fenced: two reads on one thread are ordered, but a read that
// another thread makes after synchronising with the first may be early by up
// to a memory access's latency. An interval whose ends were read on two
// threads can therefore come out a few tens of nanoseconds negative; callers
// that add such intervals up clamp them.

#include <chrono>
#include <cstdint>

namespace lanes {

// Immutable after construction: now() may be called from any thread.
class FastClock {
 public:
  using Clock = std::chrono::steady_clock;

  // Reads steady_clock (what a default-constructed clock does too).
  static FastClock steady() { return {}; }
  // Reads the time-stamp counter where it can stand in for steady_clock. The
  // calibration spans the process's life so far; a process younger than
  // kMinimumBaseline waits for the rest of it (once).
  static FastClock calibrated();
  static constexpr std::chrono::milliseconds kMinimumBaseline{10};

  Clock::time_point now() const {
#if defined(__x86_64__)
    if (nsPerTick_ != 0) return fromTicks(__builtin_ia32_rdtsc());
#endif
    return Clock::now();
  }
  // True when now() reads the time-stamp counter.
  bool readsTicks() const { return nsPerTick_ != 0; }

 private:
  Clock::time_point fromTicks(std::uint64_t ticks) const {
    auto const elapsed = static_cast<__int128>(static_cast<std::int64_t>(ticks - originTicks_)) * nsPerTick_;
    return originTime_ + std::chrono::nanoseconds(static_cast<std::int64_t>(elapsed >> kFractionBits));
  }

  static constexpr int kFractionBits = 32;
  std::uint64_t originTicks_ = 0;
  Clock::time_point originTime_{};
  std::uint64_t nsPerTick_ = 0;  // fixed point, kFractionBits fraction bits; 0: read steady_clock
};

}  // namespace lanes
