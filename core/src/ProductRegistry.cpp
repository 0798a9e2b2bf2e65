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

void ProductRegistry::registerProducts(Module& module, unsigned moduleIndex) {
  for (auto& declaration : module.produced_) {
    declaration.index = add({declaration.label, declaration.type, {}}, moduleIndex, "module '" + module.label() + "'");
  }
}

void ProductRegistry::registerReplica(Module& replica, Module const& original) const {
  auto& produced = replica.produced_;
  if (produced.size() != original.produced_.size()) {
    throw Exception("instances of stream module '" + original.label() + "' declare different products");
  }
  for (std::size_t i = 0; i < produced.size(); ++i) {
    if (produced[i].label != original.produced_[i].label) {
      throw Exception("instances of stream module '" + original.label() + "' declare different products");
    }
    produced[i].index = original.produced_[i].index;
  }
}

void ProductRegistry::resolveConsumed(Module& module) const {
  for (auto& declaration : module.consumed_) {
    auto const* index = find(declaration.label);
    if (!index) {
      throw Exception("module '" + module.label() + "' consumes product '" + declaration.label +
                      "', which nothing produces");
    }
    auto const& entry = entries_[*index];
    if (!declaration.anyType && entry.description.type != declaration.type) {
      throw Exception("module '" + module.label() + "' consumes product '" + declaration.label + "' as " +
                      demangle(declaration.type) + ", but it is a " + entry.description.typeName);
    }
    declaration.index = *index;
  }
}

}  // namespace lanes
