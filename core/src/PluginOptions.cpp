#include "lanes/core/PluginOptions.h"

#include <cmath>
#include <stdexcept>

namespace lanes {

std::string PluginOptions::where() const {
  auto const& owner = options_->owner();
  return (owner.empty() ? "" : owner + ": ") + what_ + " '" + plugin_ + "'";
}

void PluginOptions::fail(std::string const& key, std::string const& problem) const {
  throw Exception(where() + ": option '" + key + "' " + problem);
}

std::string PluginOptions::required(std::string const& key) const {
  auto value = options_->getString(key);
  if (!value) fail(key, "is required");
  if (value->empty()) throw Exception(where() + ": the value of '" + key + "' is empty");
  return *value;
}

double PluginOptions::nonNegative(std::string const& key, double fallback) const {
  double value = options_->getDouble(key, fallback);
  if (!(value >= 0) || !std::isfinite(value)) {
    fail(key, "must be a finite number >= 0, got " + shortened(options_->getString(key, "")));
  }
  return value;
}

double PluginOptions::fraction(std::string const& key, double fallback) const {
  double value = options_->getDouble(key, fallback);
  if (!(value >= 0 && value <= 1)) fail(key, "must be a fraction in [0, 1], got " + shortened(options_->getString(key, "")));
  return value;
}

namespace {

// An integer in [min, max]; the message says the range and quotes what was typed.
std::uint64_t ranged(PluginOptions const& options, std::string const& key, std::uint64_t fallback, std::uint64_t min,
                     std::uint64_t max) {
  auto const& raw = options.raw();
  auto value = raw.getInt(key, static_cast<std::int64_t>(fallback));
  if (value < 0 || static_cast<std::uint64_t>(value) < min || static_cast<std::uint64_t>(value) > max) {
    auto const upTo = max == PluginOptions::kMaxCount ? std::string() : " and <= " + std::to_string(max);
    options.fail(key, "must be >= " + std::to_string(min) + upTo + ", got " + shortened(raw.getString(key, "")));
  }
  return static_cast<std::uint64_t>(value);
}

}  // namespace

std::uint64_t PluginOptions::count(std::string const& key, std::uint64_t fallback, std::uint64_t max) const {
  return ranged(*this, key, fallback, 0, max);
}

std::uint64_t PluginOptions::positive(std::string const& key, std::uint64_t fallback, std::uint64_t max) const {
  return ranged(*this, key, fallback, 1, max);
}

std::string PluginOptions::choice(std::string const& key, std::string const& fallback,
                                  std::initializer_list<char const*> allowed) const {
  auto value = options_->getString(key, fallback);
  std::string list;
  for (char const* option : allowed) {
    if (value == option) return value;
    list += (list.empty() ? "" : "|") + std::string(option);
  }
  fail(key, "must be one of " + list + ", got '" + shortened(value) + "'");
}

std::vector<std::pair<std::string, std::size_t>> PluginOptions::sizes(std::string const& prefix) const {
  std::vector<std::pair<std::string, std::size_t>> result;
  for (auto const& [label, text] : options_->getPrefixed(prefix)) {
    std::size_t parsed = 0;
    bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    try {
      if (digits) parsed = std::stoull(text);
    } catch (std::out_of_range const&) {
      digits = false;
    }
    if (!digits || parsed > kMaxProductBytes) {
      fail(prefix + label, "expects a size in bytes from 0 to 2^40 (1 TiB), got '" + shortened(text) + "'");
    }
    result.emplace_back(label, parsed);
  }
  return result;
}

}  // namespace lanes
