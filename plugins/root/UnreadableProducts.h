#pragma once
// The top-level branches and fields that a ROOT source cannot read here, and
// what it does about them. The `root` and `rntuple` sources find every one of
// the selected ones before the job (a class ROOT can neither read nor
// emulate, a column type this ROOT does not know, a damaged page list or
// basket table), and then either refuse the job in one line that names them
// and gives the exclude= globs that leave them out (unreadable=refuse, the
// default), or read the rest and say what they left out (unreadable=skip: a
// line of the summary and the report's source.skipped_fields, or
// skipped_branches).

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/PluginOptions.h"

namespace lanes::rootio {

// Filled by a source's constructor; immutable after.
class UnreadableProducts {
 public:
  // `what`: "field" or "branch". Reads unreadable=refuse|skip from `options`.
  UnreadableProducts(PluginOptions const& options, std::string what);

  void add(std::string name, std::string why) { unreadable_.emplace_back(std::move(name), std::move(why)); }
  bool empty() const { return unreadable_.empty(); }

  // Throws lanes::Exception, one line, if any was added and the policy is to
  // refuse: the first few with why, a count of the rest, and the exclude=
  // globs that leave them out but none of `readable` (the names the source
  // reads, or takes the ids from). `where`: "'FILE': RNTuple 'Events'".
  void refuseOrSkip(std::string const& where, std::vector<std::string> const& readable) const;

  // For Source::details(): {"skipped_fields": [{"name", "why"}]} (or
  // skipped_branches), or an empty object when none were skipped.
  nlohmann::json details() const;

 private:
  std::string what_;
  bool skip_ = false;
  std::vector<std::pair<std::string, std::string>> unreadable_;  // name, why
};

// The fewest globs (`*` stands for any run of characters) that together
// match every name of `unreadable` and none of `readable`: a name's prefix or
// suffix, cut where a word of it starts, and the whole name where no such
// glob fits. In the order of the first name each matches.
std::vector<std::string> excludeGlobs(std::vector<std::string> const& unreadable,
                                      std::vector<std::string> const& readable);

}  // namespace lanes::rootio
