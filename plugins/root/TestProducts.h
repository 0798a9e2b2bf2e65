#pragma once
// The products of the `test-products` source: a fixed set of C++ types ROOT
// knows, each value a known function of the event number, so that
// `check-products` can recompute them after any round trip through a file.

#include <cstdint>
#include <string>
#include <typeinfo>
#include <vector>

#include "lanes/core/Product.h"

namespace lanes::rootio {

// Immutable after construction (a static table).
struct TestProduct {
  std::string label;
  std::type_info const& type;
  // Puts the product's value for event number `event` into `slot`.
  void (*fill)(std::uint64_t event, ProductSlot& slot);
  // True if `object` (of `type`) holds the value for event number `event`.
  bool (*matches)(std::uint64_t event, void const* object);
};

// Scalars (int32, uint64, double, bool), std::vector<float>, a nested
// std::vector<std::vector<int32>>, std::map<int32, float>, std::string, the
// user class TestTrack and a std::vector of it.
std::vector<TestProduct> const& testProducts();

// nullptr when no test product has this label.
TestProduct const* findTestProduct(std::string const& label);

}  // namespace lanes::rootio
