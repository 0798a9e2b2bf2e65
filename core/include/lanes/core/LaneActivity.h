#pragma once
// What a lane is doing, as a watchdog sees it (EventProcessor::laneActivity()).

#include <chrono>
#include <optional>

#include "lanes/core/EventId.h"

namespace lanes {

struct LaneActivity {
  unsigned lane = 0;
  bool busy = false;               // an event is in flight (false: between events, or the part is over)
  EventId event;                   // the event in flight
  std::optional<unsigned> module;  // the module whose call runs (index into JobInfo::modules); none between calls
  std::chrono::steady_clock::time_point since;  // the lane's last progress: an event or a call began or ended
};

}  // namespace lanes
