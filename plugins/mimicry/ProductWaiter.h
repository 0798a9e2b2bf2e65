#pragma once
// The `busy` and `sleep` waiters: one instance per source product, each
// costing time proportional to its product's size in every event.

#include <string>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "mimicry/WorkMode.h"

namespace lanes::mimicry {

// Immutable after construction; analyze() runs concurrently for all lanes.
class ProductWaiter : public global::Analyzer {
 public:
  // Options: product=LABEL (required; the job builder sets it), scale=SECONDS
  // per byte (default 1e-9), scale.<label>=SECONDS overriding it for one product.
  ProductWaiter(std::string label, Options const& options, WorkMode mode);

  void analyze(Event const& event) const override;
  std::string details() const override { return workDetails(mode_); }

 private:
  ProductWaiter(std::string label, PluginOptions const& options, WorkMode mode);

  ProductToken<AnyProduct> product_;
  double scale_;
  WorkMode mode_;
};

}  // namespace lanes::mimicry
