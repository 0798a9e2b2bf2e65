#pragma once
// Identity of one collision event: run, luminosity block and event number.

#include <cstdint>
#include <ostream>
#include <string>

namespace lanes {

// Immutable value type.
struct EventId {
  std::uint32_t run = 1;
  std::uint32_t luminosityBlock = 1;
  std::uint64_t event = 0;

  friend bool operator==(EventId const& a, EventId const& b) {
    return a.run == b.run && a.luminosityBlock == b.luminosityBlock && a.event == b.event;
  }
  friend bool operator!=(EventId const& a, EventId const& b) { return !(a == b); }

  std::string str() const {
    return std::to_string(run) + ":" + std::to_string(luminosityBlock) + ":" + std::to_string(event);
  }
};

inline std::ostream& operator<<(std::ostream& os, EventId const& id) { return os << id.str(); }

}  // namespace lanes
