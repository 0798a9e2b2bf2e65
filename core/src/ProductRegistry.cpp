#include "lanes/core/ProductRegistry.h"

#include "lanes/core/Exception.h"
#include "lanes/core/Module.h"

namespace lanes {

ProductIndex ProductRegistry::add(ProductDescription description, unsigned producer, std::string const& producerName) {
  auto [it, inserted] = byLabel_.try_emplace(description.label, static_cast<ProductIndex>(entries_.size()));
  if (!inserted) {
    throw Exception("product '" + description.label + "' is produced twice: by " + producerNames_[it->second] +
                    " and by " + producerName);
  }
  if (description.typeName.empty()) description.typeName = demangle(description.type);
  entries_.push_back({std::move(description), producer});
  producerNames_.push_back(producerName);
  return it->second;
}

ProductIndex const* ProductRegistry::find(std::string const& label) const {
  auto it = byLabel_.find(label);
  return it == byLabel_.end() ? nullptr : &it->second;
}

void ProductRegistry::registerProducts(Module& module, unsigned moduleIndex, Level level) {
  for (auto& declaration : module.produced_[Module::index(level)]) {
    declaration.index =
        add({declaration.label, declaration.type, {}, declaration.merge}, moduleIndex, "module '" + module.label() + "'");
  }
}

void ProductRegistry::registerReplica(Module& replica, Module const& original, Level level) const {
  auto& produced = replica.produced_[Module::index(level)];
  auto const& originals = original.produced_[Module::index(level)];
  if (produced.size() != originals.size()) {
    throw Exception("instances of stream module '" + original.label() + "' declare different products");
  }
  for (std::size_t i = 0; i < produced.size(); ++i) {
    if (produced[i].label != originals[i].label) {
      throw Exception("instances of stream module '" + original.label() + "' declare different products");
    }
    produced[i].index = originals[i].index;
  }
}

void ProductRegistry::resolveConsumed(Module& module, Level level) const {
  char const* const what = level == Level::Event ? "product" : level == Level::Lumi ? "lumi product" : "run product";
  for (auto& declaration : module.consumed_[Module::index(level)]) {
    auto const* index = find(declaration.label);
    if (!index) {
      throw Exception("module '" + module.label() + "' consumes " + what + " '" + declaration.label +
                      "', which nothing produces");
    }
    auto const& entry = entries_[*index];
    if (!declaration.anyType && entry.description.type != declaration.type) {
      throw Exception("module '" + module.label() + "' consumes " + what + " '" + declaration.label + "' as " +
                      demangle(declaration.type) + ", but it is a " + entry.description.typeName);
    }
    declaration.index = *index;
  }
}

}  // namespace lanes
