#include "mimicry/ProductWaiter.h"

#include "lanes/core/PluginRegistry.h"

namespace lanes::mimicry {
namespace {

char const* pluginName(WorkMode mode) { return mode == WorkMode::Busy ? "busy" : "sleep"; }

// scale.<product> if given, else scale. The other scale.<label> keys belong to
// the instances for the other products.
double scaleFor(PluginOptions const& options, std::string const& product) {
  options.raw().getPrefixed("scale.");
  double const scale = options.nonNegative("scale", 1e-9);
  return options.nonNegative("scale." + product, scale);
}

}  // namespace

ProductWaiter::ProductWaiter(std::string label, Options const& options, WorkMode mode)
    : ProductWaiter(std::move(label), PluginOptions(options, pluginName(mode)), mode) {}

ProductWaiter::ProductWaiter(std::string label, PluginOptions const& options, WorkMode mode)
    : Analyzer(std::move(label)),
      product_(consumesAny(options.required("product"))),
      scale_(scaleFor(options, options.required("product"))),
      mode_(mode) {}

void ProductWaiter::analyze(Event const& event) const { spend(mode_, scale_ * static_cast<double>(event.size(product_))); }

namespace {

void registerWaiter(WorkMode mode, char const* help) {
  PluginRegistry::instance().addModule({pluginName(mode), help, PluginRole::PerProductWaiter},
                                       [mode](std::string const& label, Options const& options) {
                                         return std::unique_ptr<Module>(constructModule<ProductWaiter>(label, options, mode));
                                       });
}

struct Registration {
  Registration() {
    registerWaiter(WorkMode::Busy, "burns CPU for scale x bytes of each product (scale=1e-9 s/byte, scale.<label>=...)");
    registerWaiter(WorkMode::Sleep, "sleeps for scale x bytes of each product (scale=1e-9 s/byte, scale.<label>=...)");
  }
} const registration;

}  // namespace

}  // namespace lanes::mimicry
