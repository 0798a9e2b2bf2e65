#pragma once
// Plugin options: the `key=value` pairs of a spec such as
// `busy:scale=1e-9,product=Jet_pt`, or a table of a menu file.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lanes {

// Externally synchronised: used by the single thread that constructs a plugin.
// Every getter records the key as known, so that after construction the
// framework can reject options that no getter asked for (typos).
class Options {
 public:
  void add(std::string const& key, std::string value) { values_[key].push_back(std::move(value)); }
  bool has(std::string const& key) const;
  // `owner`, if set, prefixes error messages, e.g. "menu table [source]".
  void setOwner(std::string owner) { owner_ = std::move(owner); }
  std::string const& owner() const { return owner_; }

  std::string getString(std::string const& key, std::string const& fallback) const;
  std::optional<std::string> getString(std::string const& key) const;
  double getDouble(std::string const& key, double fallback) const;
  std::int64_t getInt(std::string const& key, std::int64_t fallback) const;
  bool getBool(std::string const& key, bool fallback) const;
  // Every value of a repeated key (`file=a,file=b`), in order.
  std::vector<std::string> getAll(std::string const& key) const;
  // Values of all keys that start with `prefix` (e.g. "size." -> {"Jet_pt": "12"}).
  std::map<std::string, std::string> getPrefixed(std::string const& prefix) const;

  // Throws lanes::Exception naming the first key that no getter asked for.
  void requireAllUsed() const;

  // Removes `key` and returns its last value (for framework-level options
  // such as `repeat` that are taken before the plugin sees the rest).
  std::optional<std::string> take(std::string const& key);
  std::vector<std::string> takeAll(std::string const& key);

  std::map<std::string, std::vector<std::string>> const& values() const { return values_; }

 private:
  std::string const* last(std::string const& key) const;
  // A key read as one value must not be repeated (a list is read with getAll).
  void requireSingle(std::string const& key, std::vector<std::string> const& values) const;
  std::string prefix() const;
  [[noreturn]] void illTyped(std::string const& key, std::string const& value, char const* expected) const;

  std::string owner_;
  std::map<std::string, std::vector<std::string>> values_;
  mutable std::set<std::string> known_;
  mutable std::set<std::string> knownPrefixes_;
};

// `text` as an error message quotes a value the user typed: at most `max`
// characters, the rest elided ("123456...(300 characters)").
std::string shortened(std::string const& text, std::size_t max = 40);

// `name:key=value,key=value` split into the plugin name and its options. A
// value that holds a comma is written in double quotes: file="a,b.root"
// (in them, \" is a quote and \\ a backslash); so is one that starts with a
// quote. Any other value is taken as it is, up to the next comma (an equals
// sign or a colon in it is its own).
struct PluginSpec {
  std::string name;
  Options options;

  // Throws lanes::Exception on malformed text (e.g. a pair without '=').
  static PluginSpec parse(std::string const& text);
};

}  // namespace lanes
