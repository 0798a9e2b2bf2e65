#pragma once
// The `synthetic` source: events whose products are lanes::SyntheticBytes of
// given sizes, either fixed (size.<label>=BYTES) or replayed per event from a
// profile of a real file (profile=PATH, see Profile.h).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lanes/core/Options.h"
#include "mimicry/NumberedSource.h"
#include "lanes/core/PluginOptions.h"
#include "mimicry/ProductSizes.h"

namespace lanes::mimicry {

// Externally synchronised by the scheduler (see NumberedSource); read() is
// thread-safe (it only reads the immutable size table), and the source is
// replicable: replicas share that table.
class SyntheticSource : public NumberedSource {
 public:
  // Options: size.<label>=BYTES (repeatable) or profile=PATH; count=N cycles
  // the products until there are N; events=N (0, the default: unlimited).
  explicit SyntheticSource(Options const& options);

  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  bool concurrentReads() const override { return true; }
  std::unique_ptr<Source> replicate() const override;
  std::string origin() const override { return origin_; }

 private:
  explicit SyntheticSource(PluginOptions const& options);
  SyntheticSource(PluginOptions const& options, std::shared_ptr<std::vector<ProductSizes> const> sizes);

  std::shared_ptr<std::vector<ProductSizes> const> sizes_;
  std::string origin_;
};

}  // namespace lanes::mimicry
