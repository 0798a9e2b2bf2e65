#pragma once
// What the generic mimicry modules (producer, filter, analyzer, offload)
// share: consumed products, a cost per call, and synthetic products to put.

#include <string>
#include <utility>
#include <vector>

#include "lanes/core/Event.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Product.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::mimicry {

// Immutable after construction, so safe in every concurrency class. `Base` is
// a typed module base (global::Producer, limited::Filter, ...); BaseArgs are
// its constructor's arguments (the label, and the limit for limited::).
template <typename Base>
class MimicModule : public Base {
 protected:
  // Options: consumes=LABEL (repeatable), time=SECONDS per call (default 0),
  // scale=SECONDS per consumed byte (default 0).
  template <typename... BaseArgs>
  explicit MimicModule(PluginOptions const& options, BaseArgs&&... baseArgs)
      : Base(std::forward<BaseArgs>(baseArgs)...),
        time_(options.nonNegative("time", 0)),
        scale_(options.nonNegative("scale", 0)) {
    for (auto const& label : options.raw().getAll("consumes")) consumed_.push_back(this->consumesAny(label));
  }

  // For producers. Options: produces.<label>=BYTES (repeatable over labels).
  void declareProduced(PluginOptions const& options) {
    for (auto const& [label, bytes] : options.sizes("produces.")) {
      produced_.push_back({this->template produces<SyntheticBytes>(label), bytes});
    }
  }

  // Seconds one call costs for `event`: time + scale x consumed bytes.
  double cost(Event const& event) const {
    std::size_t bytes = 0;
    for (auto const& token : consumed_) bytes += event.size(token);
    return time_ + scale_ * static_cast<double>(bytes);
  }

  void putProduced(Event& event) const {
    for (auto const& [token, bytes] : produced_) event.put(token, SyntheticBytes{bytes}, bytes);
  }

 private:
  struct Produced {
    ProductToken<SyntheticBytes> token;
    std::size_t bytes;
  };

  double time_;
  double scale_;
  std::vector<ProductToken<AnyProduct>> consumed_;
  std::vector<Produced> produced_;
};

}  // namespace lanes::mimicry
