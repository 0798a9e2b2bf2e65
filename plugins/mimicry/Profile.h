#pragma once
// Product-size profiles: JSON files that lanes.tools.derive_profile writes from a
// real ROOT file, read back by the synthetic source.
//
//   {"origin": "file.root", "tree": "Events", "events": 200, "products": [
//    {"label": "Jet_pt", "type": "float[]", "bytes_mean": 42.9, "bytes": [40, 48, ...]}, ...]}
//
// A product's per-event `bytes` are optional; without them every event uses
// `bytes_mean` (rounded to whole bytes).

#include <string>
#include <vector>

#include "mimicry/ProductSizes.h"

namespace lanes::mimicry {

// Throws lanes::Exception naming `path` if the file is missing, unreadable,
// not JSON, or not a profile (and which product and field is wrong).
std::vector<ProductSizes> loadProfile(std::string const& path);

}  // namespace lanes::mimicry
