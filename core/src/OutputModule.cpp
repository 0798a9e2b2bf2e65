#include "lanes/core/OutputModule.h"

#include "lanes/core/Exception.h"
#include "lanes/core/ProductRegistry.h"

namespace lanes {

bool globMatch(std::string const& pattern, std::string const& text) {
  std::size_t p = 0, t = 0, starP = std::string::npos, starT = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      starP = p++, starT = t;
    } else if (starP != std::string::npos) {
      p = starP + 1, t = ++starT;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

void OutputModule::selectProducts(ProductRegistry const& registry, ProductRegistry const* runs,
                                  ProductRegistry const* lumis) {
  runRegistry_ = runs;
  lumiRegistry_ = lumis;
  std::vector<bool> matched(keepPatterns_.size(), false);
  for (auto const& entry : registry.entries()) {
    auto const& label = entry.description.label;
    bool kept = keepPatterns_.empty();
    for (std::size_t k = 0; k < keepPatterns_.size(); ++k) {
      if (globMatch(keepPatterns_[k], label)) kept = matched[k] = true;
    }
    if (kept) consumesAny(label);
  }
  for (std::size_t k = 0; k < keepPatterns_.size(); ++k) {
    if (!matched[k]) {
      throw Exception("output '" + label() + "': keep=" + keepPatterns_[k] + " matches no product of the job");
    }
  }
}

}  // namespace lanes
