#pragma once
// Synthetic jobs and calls for the monitor tests: the observers see exactly
// what a scheduler would hand them, from as many threads as a test asks for.

#include <functional>
#include <latch>
#include <thread>
#include <vector>

#include "lanes/core/ProcessingObserver.h"
#include "lanes/core/ProductRegistry.h"

namespace lanes::test {

// Three modules: a producer, a filter and an output.
inline JobInfo syntheticJob(unsigned threads = 4) {
  return {threads,
          threads,
          {{"tracks", "busy", ModuleKind::Producer, Concurrency::Global},
           {"select", "pass", ModuleKind::Filter, Concurrency::One},
           {"writer", "null", ModuleKind::Output, Concurrency::Limited}},
          "empty"};
}

inline CallRecord call(unsigned module, Transition transition, std::chrono::microseconds duration,
                       std::uint64_t event = 1, unsigned lane = 0, Clock::time_point begin = Clock::time_point{}) {
  return {module, transition, lane, EventId{1, 1, event}, begin, begin + duration};
}

// Runs body(thread index) on `threads` std::threads (threads that oneTBB does
// not know, like those completing external work), all alive at once.
inline void onThreads(unsigned threads, std::function<void(unsigned)> const& body) {
  std::latch allStarted(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      allStarted.arrive_and_wait();
      body(t);
    });
  }
  for (auto& thread : pool) thread.join();
}

}  // namespace lanes::test
