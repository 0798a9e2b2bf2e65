#pragma once
// A lane's activity for a watchdog. Written by the lane's tasks (one at a
// time, or concurrent calls of the same event: the last writer wins), read
// by any thread: relaxed atomics, so a snapshot may mix two moments of one
// lane, which a watchdog's message tolerates. Costs nothing until watched.

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
    module_.store(kNone, std::memory_order_relaxed);
    busy_.store(true, std::memory_order_relaxed);
    progress();
  }
  void eventEnded() {
    busy_.store(false, std::memory_order_relaxed);
    progress();
  }
  void callBegan(unsigned module) {
    module_.store(module, std::memory_order_relaxed);
    progress();
  }
  // A concurrent call of the same event that began later stays named.
  void callEnded(unsigned module) {
    module_.compare_exchange_strong(module, kNone, std::memory_order_relaxed);
    progress();
  }

  LaneActivity snapshot(unsigned lane) const {
    LaneActivity activity;
    activity.lane = lane;
    activity.busy = busy_.load(std::memory_order_relaxed);
    activity.event = {run_.load(std::memory_order_relaxed), luminosityBlock_.load(std::memory_order_relaxed),
                      event_.load(std::memory_order_relaxed)};
    if (auto const module = module_.load(std::memory_order_relaxed); module != kNone) activity.module = module;
    activity.since = Clock::time_point(Clock::duration(since_.load(std::memory_order_relaxed)));
    return activity;
  }

 private:
  static constexpr unsigned kNone = std::numeric_limits<unsigned>::max();
  void progress() { since_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed); }

  std::atomic<bool> busy_{false};
  std::atomic<std::uint32_t> run_{0}, luminosityBlock_{0};
  std::atomic<std::uint64_t> event_{0};
  std::atomic<unsigned> module_{kNone};
  std::atomic<Clock::rep> since_{0};
};

}  // namespace lanes::detail
