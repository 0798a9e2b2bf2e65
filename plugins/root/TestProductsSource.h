#pragma once
// The `test-products` source: every event carries the products of
// TestProducts.h, their values a function of the event number, to prove
// that a format round-trips them exactly (with the `check-products` output).

#include "lanes/core/Options.h"
#include "mimicry/NumberedSource.h"

namespace lanes::rootio {

// Externally synchronised by the scheduler (see NumberedSource); reads make
// new values and touch no state, so they may run concurrently; replicable.
class TestProductsSource : public mimicry::NumberedSource {
 public:
  // Options: events=N (0, the default: unlimited).
  explicit TestProductsSource(Options const& options);

  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  bool concurrentReads() const override { return true; }
  std::unique_ptr<Source> replicate() const override;
  std::string origin() const override { return "test-products"; }
};

}  // namespace lanes::rootio
