#pragma once
// When the host saw a device queue's first pieces of work done: the bound a
// traced piece's box must end by (CudaTrace.h). A stream callback or a
// marker's waiter notes what it saw; the trace asks, piece by piece, in order.

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "lanes/core/ProcessingObserver.h"

namespace lanes::accel {

// Thread-safe; makes no CUDA call, so a stream callback's thread may note here.
class Sightings {
 public:
  // The host saw the queue's first `count` pieces of work done at `when`.
  void seen(std::uint64_t count, Clock::time_point when) {
    std::lock_guard lock(mutex_);
    sightings_.push_back({count, when});
  }

  // The earliest time the host saw piece `index` done, if it did. Forgets
  // what only concerns the pieces before it: ask in order of the pieces.
  std::optional<Clock::time_point> doneBy(std::uint64_t index) {
    std::lock_guard lock(mutex_);
    sightings_.erase(std::remove_if(sightings_.begin(), sightings_.end(),
                                    [index](Sighting const& sighting) { return sighting.count <= index; }),
                     sightings_.end());
    std::optional<Clock::time_point> earliest;
    for (auto const& sighting : sightings_) earliest = std::min(earliest.value_or(sighting.when), sighting.when);
    return earliest;
  }

 private:
  struct Sighting {
    std::uint64_t count;
    Clock::time_point when;
  };
  std::mutex mutex_;  // guards sightings_
  std::vector<Sighting> sightings_;
};

}  // namespace lanes::accel
