#pragma once
// The `empty` source: events without products, for measuring the framework's
// own overhead.

#include "lanes/core/Options.h"
#include "mimicry/NumberedSource.h"

namespace lanes::mimicry {

// Externally synchronised by the scheduler (see NumberedSource); replicable.
class EmptySource : public NumberedSource {
 public:
  // Options: events=N (0, the default: unlimited).
  explicit EmptySource(Options const& options);

  // There are no products, so the scheduler has nothing to read: throws.
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  bool concurrentReads() const override { return true; }
  std::unique_ptr<Source> replicate() const override;
  std::string origin() const override { return "empty"; }
};

}  // namespace lanes::mimicry
