#pragma once
// The size a synthetic product has in each event.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lanes::mimicry {

// Immutable value type.
struct ProductSizes {
  std::string label;
  std::vector<std::size_t> bytes;  // per event ordinal, cycled; never empty (one entry: a constant size)

  std::size_t at(std::uint64_t ordinal) const {
    if (bytes.size() == 1) return bytes.front();
    return bytes[ordinal < bytes.size() ? ordinal : ordinal % bytes.size()];  // the source usually cycled already
  }
};

}  // namespace lanes::mimicry
