#pragma once
// Which events a process takes from its source, by ordinal: 0, 1, 2, ... in
// the source's order. A single-process job takes them all; in a multi-process
// job (the node layer) each worker takes its share: every P-th event, or
// chunks from a queue shared with the other workers.

#include <cstdint>
#include <optional>

namespace lanes {

// next() is called concurrently by the lanes, and must return ordinals in
// increasing order across calls (a shared source can only move forward:
// the scheduler claims from it under the source's serial queue, so for a
// shared source "in order of the calls" is well defined). Nothing once the
// dispenser is exhausted, and from then on.
class EventDispenser {
 public:
  virtual ~EventDispenser() = default;
  virtual std::optional<std::uint64_t> next() = 0;
};

}  // namespace lanes
