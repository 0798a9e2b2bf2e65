#pragma once
// Checked getters over one plugin's Options: every bad value becomes a
// lanes::Exception that names the plugin and the option.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "lanes/core/Exception.h"
#include "lanes/core/Options.h"

namespace lanes {

// Externally synchronised, like the Options it reads: used by the single
// thread that constructs the plugin. Each getter marks its key as known.
class PluginOptions {
 public:
  static constexpr std::uint64_t kMaxCount = (std::uint64_t{1} << 63) - 1;
  // A product of more than a TiB is a typo (and sums of sizes must not overflow).
  static constexpr std::uint64_t kMaxProductBytes = std::uint64_t{1} << 40;
  // Threads, queues or concurrent calls one plugin may ask for.
  static constexpr std::uint64_t kMaxConcurrency = 4096;

  // `what` names what the options are of in messages ("plugin 'NAME'").
  PluginOptions(Options const& options, std::string plugin, std::string what = "plugin")
      : options_(&options), plugin_(std::move(plugin)), what_(std::move(what)) {}

  Options const& raw() const { return *options_; }

  std::string required(std::string const& key) const;
  double nonNegative(std::string const& key, double fallback) const;
  // A number in [0, 1].
  double fraction(std::string const& key, double fallback) const;
  // A count in [0, max].
  std::uint64_t count(std::string const& key, std::uint64_t fallback, std::uint64_t max = kMaxCount) const;
  // A count in [1, max].
  std::uint64_t positive(std::string const& key, std::uint64_t fallback, std::uint64_t max = kMaxCount) const;
  // One of `allowed`.
  std::string choice(std::string const& key, std::string const& fallback, std::initializer_list<char const*> allowed) const;
  // `prefix<label>=BYTES` pairs, in label order; each at most kMaxProductBytes.
  std::vector<std::pair<std::string, std::size_t>> sizes(std::string const& prefix) const;

  // Runs `read()`; a lanes::Exception it throws (a bad file, say) comes back
  // naming the plugin and option `key`, unless it names the plugin already.
  template <typename Read>
  auto forOption(std::string const& key, Read read) const -> decltype(read()) {
    try {
      return read();
    } catch (Exception const& error) {
      if (error.message().rfind(where() + ": ", 0) == 0) throw;
      throw Exception(where() + ": option '" + key + "': " + error.message());
    }
  }

  [[noreturn]] void fail(std::string const& key, std::string const& problem) const;

 private:
  // "plugin 'NAME'", after the Options' owner when one is set.
  std::string where() const;

  Options const* options_;
  std::string plugin_;
  std::string what_;
};

}  // namespace lanes
