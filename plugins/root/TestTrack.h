#pragma once
// A user class with a ROOT dictionary (generated at build time from
// TestTrackLinkDef.h), for the `test-products` source: a class of several
// members of different kinds, as an experiment's data format has them.

#include <cstdint>
#include <map>  // for the dictionary of std::map<int, float> (TestTrackLinkDef.h)
#include <string>
#include <vector>

namespace lanes::rootio {

// Immutable value type once filled.
struct TestTrack {
  std::int32_t charge = 0;
  double pt = 0;
  float covariance[3] = {0, 0, 0};
  std::vector<float> hits;
  std::string algorithm;

  bool operator==(TestTrack const& other) const {
    return charge == other.charge && pt == other.pt && covariance[0] == other.covariance[0] &&
           covariance[1] == other.covariance[1] && covariance[2] == other.covariance[2] && hits == other.hits &&
           algorithm == other.algorithm;
  }
};

}  // namespace lanes::rootio
