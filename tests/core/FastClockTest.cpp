#include "lanes/core/FastClock.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace lanes {
namespace {

using Clock = FastClock::Clock;
using std::chrono::milliseconds;

// Agreement, not speed: a read lies between the steady_clock reads around it,
// give or take the calibration's error, far below this margin.
constexpr milliseconds kMargin{1};

void expectAgreesWithSteadyClock(FastClock const& clock) {
  for (int i = 0; i < 10000; ++i) {
    auto const before = Clock::now();
    auto const read = clock.now();
    auto const after = Clock::now();
    ASSERT_GE(read, before - kMargin);
    ASSERT_LE(read, after + kMargin);
  }
}

TEST(FastClock, CalibratedReadsAgreeWithSteadyClock) { expectAgreesWithSteadyClock(FastClock::calibrated()); }

TEST(FastClock, SteadyReadsSteadyClock) {
  auto const clock = FastClock::steady();
  EXPECT_FALSE(clock.readsTicks());
  auto const before = Clock::now();
  auto const read = clock.now();
  EXPECT_LE(before, read);
  EXPECT_LE(read, Clock::now());
}

// Each thread's reads never go back, with more threads than cores moving
// between CPUs as they are preempted (the counter is one across CPUs).
TEST(FastClock, ReadsOnAThreadNeverGoBackUnderContention) {
  auto const clock = FastClock::calibrated();
  unsigned const threads = 2 * std::max(2u, std::thread::hardware_concurrency());
  std::atomic<int> backwards{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      auto last = clock.now();
      for (int i = 0; i < 200000; ++i) {
        auto const read = clock.now();
        if (read < last) ++backwards;
        last = read;
      }
    });
  }
  for (auto& thread : pool) thread.join();
  EXPECT_EQ(backwards.load(), 0);
}

// A later calibration spans more of the process: it agrees as well.
TEST(FastClock, RecalibratingAgreesToo) {
  auto const first = FastClock::calibrated();
  auto const second = FastClock::calibrated();
  EXPECT_EQ(first.readsTicks(), second.readsTicks());
  expectAgreesWithSteadyClock(second);
  expectAgreesWithSteadyClock(first);
}

}  // namespace
}  // namespace lanes
