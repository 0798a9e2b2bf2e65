#include "root/UnreadableProducts.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "lanes/core/Exception.h"
#include "lanes/core/OutputModule.h"

namespace lanes::rootio {

namespace {

// The unreadable ones a refusal names with why; it counts the rest.
constexpr std::size_t kNamed = 3;

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Whether a word of `name` starts at `i` (0 < i < size): after a character
// that is none, at a capital after a small letter, where letters and digits meet.
bool wordStartsAt(std::string const& name, std::size_t i) {
  auto const before = static_cast<unsigned char>(name[i - 1]), at = static_cast<unsigned char>(name[i]);
  if (!isWordChar(at)) return false;
  return !isWordChar(before) || (std::islower(before) && std::isupper(at)) ||
         (std::isalpha(before) != 0) != (std::isalpha(at) != 0);
}

// The globs excludeGlobs() weighs for `name`: itself, and its prefixes and
// suffixes cut where a word starts.
std::vector<std::string> globsOf(std::string const& name) {
  std::vector<std::string> globs{name};
  for (std::size_t i = 1; i < name.size(); ++i) {
    if (!wordStartsAt(name, i)) continue;
    globs.push_back(name.substr(0, i) + "*");
    globs.push_back("*" + name.substr(i));
  }
  return globs;
}

std::string plural(std::size_t count, std::string const& what) {
  if (count == 1) return what;
  return what == "branch" ? "branches" : what + "s";
}

}  // namespace

UnreadableProducts::UnreadableProducts(PluginOptions const& options, std::string what)
    : what_(std::move(what)), skip_(options.choice("unreadable", "refuse", {"refuse", "skip"}) == "skip") {}

void UnreadableProducts::refuseOrSkip(std::string const& where, std::vector<std::string> const& readable) const {
  if (unreadable_.empty() || skip_) return;
  std::vector<std::string> names;
  std::string named;
  for (auto const& [name, why] : unreadable_) {
    if (names.size() < kNamed) named += (names.empty() ? "" : ", ") + ("'" + name + "' (" + why + ")");
    names.push_back(name);
  }
  if (names.size() > kNamed) named += " and " + std::to_string(names.size() - kNamed) + " more";
  std::string excludes;
  for (auto const& glob : excludeGlobs(names, readable)) excludes += (excludes.empty() ? "" : ",") + ("exclude=" + glob);
  throw Exception(where + ": " + std::to_string(names.size()) + " selected " + plural(names.size(), what_) +
                  " cannot be read here: " + named + "; leave " + (names.size() == 1 ? "it" : "them") + " out with " +
                  excludes + ", or read the rest with unreadable=skip");
}

nlohmann::json UnreadableProducts::details() const {
  if (unreadable_.empty()) return nlohmann::json::object();
  auto skipped = nlohmann::json::array();
  for (auto const& [name, why] : unreadable_) skipped.push_back({{"name", name}, {"why", why}});
  return {{"skipped_" + plural(2, what_), skipped}};
}

std::vector<std::string> excludeGlobs(std::vector<std::string> const& unreadable,
                                      std::vector<std::string> const& readable) {
  // Each glob that matches no readable name, with the unreadable names it matches.
  std::vector<std::pair<std::string, std::vector<bool>>> candidates;
  std::set<std::string> weighed;
  for (auto const& name : unreadable) {
    for (auto& glob : globsOf(name)) {
      if (!weighed.insert(glob).second) continue;
      auto const matches = [&glob](std::string const& other) { return globMatch(glob, other); };
      if (std::any_of(readable.begin(), readable.end(), matches)) continue;
      std::vector<bool> covers;
      for (auto const& other : unreadable) covers.push_back(matches(other));
      candidates.emplace_back(std::move(glob), std::move(covers));
    }
  }
  // Greedy: the glob that matches the most names not yet matched, the longer
  // (the more telling) of two that match as many.
  std::vector<bool> covered(unreadable.size(), false);
  std::vector<std::size_t> chosen;
  for (auto left = unreadable.size(); left > 0;) {
    std::size_t best = 0, bestCount = 0;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      std::size_t count = 0;
      for (std::size_t n = 0; n < unreadable.size(); ++n) count += candidates[c].second[n] && !covered[n];
      if (count > bestCount || (count == bestCount && count > 0 && candidates[c].first.size() > candidates[best].first.size())) {
        best = c;
        bestCount = count;
      }
    }
    if (bestCount == 0) break;  // only where a name is both readable and not (never: names are unique)
    for (std::size_t n = 0; n < unreadable.size(); ++n) covered[n] = covered[n] || candidates[best].second[n];
    left -= bestCount;
    chosen.push_back(best);
  }
  // In the order of the names: each glob where the first name it matches is.
  auto const firstMatched = [&](std::size_t c) {
    auto const& covers = candidates[c].second;
    return std::find(covers.begin(), covers.end(), true) - covers.begin();
  };
  std::sort(chosen.begin(), chosen.end(), [&](auto a, auto b) { return firstMatched(a) < firstMatched(b); });
  std::vector<std::string> globs;
  for (auto const c : chosen) globs.push_back(candidates[c].first);
  return globs;
}

}  // namespace lanes::rootio
