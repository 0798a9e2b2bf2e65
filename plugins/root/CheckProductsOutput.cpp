#include "root/CheckProductsOutput.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProductRegistry.h"
#include "root/OutputSupport.h"
#include "root/TestProducts.h"

namespace lanes::rootio {

CheckProductsOutput::CheckProductsOutput(std::string label, Options const& options) : Output(std::move(label)) {
  keep(options.getAll("keep"));
}

void CheckProductsOutput::beginJob(JobContext const& context) {
  checked_.clear();
  for (auto const& consumed : consumed()) {
    if (std::find(std::begin(kIdColumns), std::end(kIdColumns), consumed.label) != std::end(kIdColumns)) continue;
    auto const* product = findTestProduct(consumed.label);
    if (!product) {
      throw ConfigurationError("check-products: product '" + consumed.label +
                               "' is not a test-products product; select them with keep=");
    }
    checked_.push_back({consumed.index, product});
  }
}

void CheckProductsOutput::write(Event const& event) const {
  auto const number = event.id().event;
  for (auto const& [index, product] : checked_) {
    auto const& slot = event.slot(index);
    if (!slot.filled() || slot.type() != product->type) {
      throw Exception("check-products: product '" + product->label + "' of event " + event.id().str() +
                      (slot.filled() ? " has type " + demangle(slot.type()) + ", not " + demangle(product->type)
                                     : " is missing"));
    }
    if (!product->matches(number, slot.object())) {
      throw Exception("check-products: product '" + product->label + "' of event " + event.id().str() +
                      " differs from the value test-products gives it");
    }
  }
  events_.fetch_add(1, std::memory_order_relaxed);
}

std::string CheckProductsOutput::details() const {
  return nlohmann::json{{"events_checked", events_.load()}, {"products_checked", checked_.size()}}.dump();
}

namespace {
RegisterOutput<CheckProductsOutput> const registration(
    "check-products",
    "recomputes every test-products product from the event number and fails the job naming the product and event "
    "on a difference: keep=GLOB",
    {});
}

}  // namespace lanes::rootio
