#pragma once
// Small menus built by hand for the model's tests: modules of constant
// costs, each analyzer or filter on a path of its own, a source that costs
// nothing.

#include <string>
#include <vector>

#include "lanes/model/Menu.h"

namespace lanes::model::test {

inline MenuModule moduleOf(std::string label, double seconds, std::string concurrency = "global", unsigned limit = 0) {
  MenuModule module;
  module.label = std::move(label);
  module.plugin = "producer";
  module.kind = "analyzer";
  module.concurrency = std::move(concurrency);
  module.limit = module.concurrency == "one" ? 1 : limit;
  module.event = Distribution::constant(seconds);
  return module;
}

// Each analyzer and filter on a path of its own, as `lanes run` puts waiters and lone modules.
inline Menu menuOf(std::vector<MenuModule> modules) {
  Menu menu;
  menu.modules = std::move(modules);
  for (unsigned m = 0; m < menu.modules.size(); ++m) {
    auto const& kind = menu.modules[m].kind;
    if (kind == "analyzer" || kind == "filter") menu.paths.push_back({menu.modules[m].label, {m}});
  }
  menu.measured = {1, 1, 1, 100, 1.0, 0.0, "hand-made.json"};
  return menu;
}

inline Layout layoutOf(unsigned threads, unsigned lanes, std::uint64_t events) {
  Layout layout;
  layout.threads = threads;
  layout.lanes = lanes;
  layout.events = events;
  return layout;
}

}  // namespace lanes::model::test
