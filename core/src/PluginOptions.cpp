#include "lanes/core/PluginOptions.h"

#include <cmath>
#include <stdexcept>

namespace lanes {

std::string PluginOptions::where() const {
  auto const& owner = options_->owner();
  return (owner.empty() ? "" : owner + ": ") + "plugin '" + plugin_ + "'";
}

void PluginOptions::fail(std::string const& key, std::string const& problem) const {
  throw Exception(where() + ": option '" + key + "' " + problem);
}

std::string PluginOptions::required(std::string const& key) const {
  auto value = options_->getString(key);
  if (!value || value->empty()) fail(key, "is required");
  return *value;
}

double PluginOptions::nonNegative(std::string const& key, double fallback) const {
  double value = options_->getDouble(key, fallback);
  if (!(value >= 0) || !std::isfinite(value)) {
    fail(key, "must be a finite number >= 0, got " + options_->getString(key, ""));
  }
  return value;
}

double PluginOptions::fraction(std::string const& key, double fallback) const {
  double value = options_->getDouble(key, fallback);
  if (!(value >= 0 && value <= 1)) fail(key, "must be a fraction in [0, 1], got " + options_->getString(key, ""));
  return value;
}

std::uint64_t PluginOptions::count(std::string const& key, std::uint64_t fallback) const {
  auto value = options_->getInt(key, static_cast<std::int64_t>(fallback));
  if (value < 0) fail(key, "must be >= 0, got " + std::to_string(value));
  return static_cast<std::uint64_t>(value);
}

std::uint64_t PluginOptions::positive(std::string const& key, std::uint64_t fallback) const {
  auto value = options_->getInt(key, static_cast<std::int64_t>(fallback));
  if (value < 1) fail(key, "must be >= 1, got " + std::to_string(value));
  return static_cast<std::uint64_t>(value);
}

std::string PluginOptions::choice(std::string const& key, std::string const& fallback,
                                  std::initializer_list<char const*> allowed) const {
  auto value = options_->getString(key, fallback);
  std::string list;
  for (char const* option : allowed) {
    if (value == option) return value;
    list += (list.empty() ? "" : "|") + std::string(option);
  }
  fail(key, "must be one of " + list + ", got '" + value + "'");
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
    if (!digits) fail(prefix + label, "expects a size in bytes (an integer >= 0), got '" + text + "'");
    result.emplace_back(label, parsed);
  }
  return result;
}

}  // namespace lanes
