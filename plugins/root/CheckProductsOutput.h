#pragma once
// The `check-products` output: recomputes every product of the
// `test-products` source from the event number and fails the job, naming
// the product and the event, on any difference. It proves that a format
// (written by one job, read back by its source in another) round-trips
// exactly.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"

namespace lanes::rootio {

struct TestProduct;

// Thread-safe: write() runs concurrently for any lanes; it only reads the
// immutable table built by beginJob() and counts with an atomic.
class CheckProductsOutput : public global::Output {
 public:
  // Options: keep=GLOB (repeatable; none: every product of the job, each of
  // which must be a test product).
  CheckProductsOutput(std::string label, Options const& options);

  void beginJob(JobContext const& context) override;
  void write(Event const& event) const override;
  std::string details() const override;

 private:
  struct Checked {
    ProductIndex index;
    TestProduct const* product;
  };
  std::vector<Checked> checked_;
  mutable std::atomic<std::uint64_t> events_{0};
};

}  // namespace lanes::rootio
