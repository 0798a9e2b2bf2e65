#pragma once
// A lane's activity for a watchdog. Written by the lane's tasks (one at a
// time, or concurrent calls of the same event), read by any thread: relaxed
// atomics, so a snapshot may mix two moments of one lane, which a
// watchdog's message tolerates. Costs nothing until watched.

#include <array>
#include <atomic>
#include <limits>

#include "lanes/core/LaneActivity.h"
#include "lanes/core/ProcessingObserver.h"

namespace lanes::detail {

class LaneWatch {
 public:
  void eventBegan(EventId const& id) {
    run_.store(id.run, std::memory_order_relaxed);
    luminosityBlock_.store(id.luminosityBlock, std::memory_order_relaxed);
    event_.store(id.event, std::memory_order_relaxed);
    for (auto& call : calls_) call.store(kNone, std::memory_order_relaxed);
    busy_.store(true, std::memory_order_relaxed);
    progress();
  }
  void eventEnded() {
    busy_.store(false, std::memory_order_relaxed);
    progress();
  }
  // Each call in flight holds the first free place, so that a call that
  // hangs keeps its place while others of its event come and go after it
  // (one more than kCalls at once goes unnamed).
  void callBegan(unsigned module) {
    for (auto& call : calls_) {
      auto none = kNone;
      if (call.compare_exchange_strong(none, module, std::memory_order_relaxed)) break;
    }
    progress();
  }
  void callEnded(unsigned module) {
    for (auto& call : calls_) {
      auto mine = module;
      if (call.compare_exchange_strong(mine, kNone, std::memory_order_relaxed)) break;
    }
    progress();
  }

  LaneActivity snapshot(unsigned lane) const {
    LaneActivity activity;
    activity.lane = lane;
    activity.busy = busy_.load(std::memory_order_relaxed);
    activity.event = {run_.load(std::memory_order_relaxed), luminosityBlock_.load(std::memory_order_relaxed),
                      event_.load(std::memory_order_relaxed)};
    for (auto const& call : calls_) {
      if (auto const module = call.load(std::memory_order_relaxed); module != kNone) {
        activity.module = module;  // the one in flight longest, as a rule
        break;
      }
    }
    activity.since = Clock::time_point(Clock::duration(since_.load(std::memory_order_relaxed)));
    return activity;
  }

 private:
  static constexpr unsigned kNone = std::numeric_limits<unsigned>::max();
  static constexpr std::size_t kCalls = 4;
  void progress() { since_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed); }

  std::atomic<bool> busy_{false};
  std::atomic<std::uint32_t> run_{0}, luminosityBlock_{0};
  std::atomic<std::uint64_t> event_{0};
  std::array<std::atomic<unsigned>, kCalls> calls_{kNone, kNone, kNone, kNone};
  std::atomic<Clock::rep> since_{0};
};

}  // namespace lanes::detail
