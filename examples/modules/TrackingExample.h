#pragma once
// The products of the tracking example (examples/modules/TrackingExample.cpp).

#include <cstdint>
#include <vector>

namespace lanes::examples {

struct Tracks {
  std::vector<double> pt;
};

struct Vertices {
  std::size_t count = 0;
};

// Events the last job's histogram saw (set at endJob, read by the test).
inline std::uint64_t lastJobEvents = 0;

}  // namespace lanes::examples
