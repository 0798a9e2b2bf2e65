#include "lanes/core/Options.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "lanes/core/Exception.h"

namespace lanes {

bool Options::has(std::string const& key) const {
  known_.insert(key);
  return values_.count(key) != 0;
}

std::string const* Options::last(std::string const& key) const {
  known_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end() || it->second.empty()) return nullptr;
  requireSingle(key, it->second);
  return &it->second.back();
}

void Options::requireSingle(std::string const& key, std::vector<std::string> const& values) const {
  if (values.size() < 2) return;
  throw Exception(prefix() + "option '" + key + "' is given " + std::to_string(values.size()) + " times ('" +
                  shortened(values[0]) + "', '" + shortened(values[1]) + "'...); it takes one value");
}

void Options::illTyped(std::string const& key, std::string const& value, char const* expected) const {
  throw Exception(prefix() + "option '" + key + "' expects " + expected + ", got '" + shortened(value) + "'");
}

std::string Options::getString(std::string const& key, std::string const& fallback) const {
  auto const* value = last(key);
  return value ? *value : fallback;
}

std::optional<std::string> Options::getString(std::string const& key) const {
  auto const* value = last(key);
  if (!value) return std::nullopt;
  return *value;
}

double Options::getDouble(std::string const& key, double fallback) const {
  auto const* value = last(key);
  if (!value) return fallback;
  char* end = nullptr;
  errno = 0;
  double result = std::strtod(value->c_str(), &end);
  if (value->empty() || *end != '\0' || errno == ERANGE) illTyped(key, *value, "a number");
  return result;
}

std::int64_t Options::getInt(std::string const& key, std::int64_t fallback) const {
  auto const* value = last(key);
  if (!value) return fallback;
  char* end = nullptr;
  errno = 0;
  long long result = std::strtoll(value->c_str(), &end, 10);
  if (value->empty() || *end != '\0' || errno == ERANGE) illTyped(key, *value, "an integer");
  return result;
}

bool Options::getBool(std::string const& key, bool fallback) const {
  auto const* value = last(key);
  if (!value) return fallback;
  if (*value == "true" || *value == "1" || *value == "yes" || *value == "on") return true;
  if (*value == "false" || *value == "0" || *value == "no" || *value == "off") return false;
  illTyped(key, *value, "true or false");
}

std::vector<std::string> Options::getAll(std::string const& key) const {
  known_.insert(key);
  auto it = values_.find(key);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::map<std::string, std::string> Options::getPrefixed(std::string const& prefix) const {
  knownPrefixes_.insert(prefix);
  std::map<std::string, std::string> result;
  for (auto const& [key, values] : values_) {
    if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0 && !values.empty()) {
      requireSingle(key, values);
      result[key.substr(prefix.size())] = values.back();
    }
  }
  return result;
}

void Options::requireAllUsed() const {
  for (auto const& [key, values] : values_) {
    if (known_.count(key)) continue;
    bool prefixed = false;
    for (auto const& prefix : knownPrefixes_) prefixed |= key.compare(0, prefix.size(), prefix) == 0;
    if (prefixed) continue;
    std::string knownList;
    for (auto const& k : known_) knownList += (knownList.empty() ? "" : ", ") + k;
    for (auto const& p : knownPrefixes_) knownList += (knownList.empty() ? "" : ", ") + p + "*";
    throw Exception(prefix() + "unknown option '" + key + "'" +
                    (knownList.empty() ? " (it takes no options)" : " (known: " + knownList + ")"));
  }
}

std::string Options::prefix() const { return owner_.empty() ? std::string() : owner_ + ": "; }

std::vector<std::string> Options::takeAll(std::string const& key) {
  auto it = values_.find(key);
  if (it == values_.end()) return {};
  auto values = std::move(it->second);
  values_.erase(it);
  return values;
}

std::optional<std::string> Options::take(std::string const& key) {
  auto it = values_.find(key);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  requireSingle(key, it->second);
  std::string value = it->second.back();
  values_.erase(it);
  return value;
}

std::string shortened(std::string const& text, std::size_t max) {
  if (text.size() <= max) return text;
  return text.substr(0, max) + "...(" + std::to_string(text.size()) + " characters)";
}

namespace {

// The value that starts at `at`, in double quotes: \" is a quote, \\ a
// backslash, any other character (a comma, an equals sign) itself. `at`
// moves past the closing quote, which must end the option.
std::string quotedValue(std::string const& rest, std::size_t& at, std::string const& text) {
  std::string value;
  for (auto i = at + 1; i < rest.size(); ++i) {
    if (rest[i] == '\\' && i + 1 < rest.size() && (rest[i + 1] == '"' || rest[i + 1] == '\\')) {
      value += rest[++i];
    } else if (rest[i] != '"') {
      value += rest[i];
    } else if (i + 1 < rest.size() && rest[i + 1] != ',') {
      throw Exception("text after the closing quote of a value in spec '" + shortened(text) +
                      "': a quoted value ends its option (key=\"VALUE\",next=...)");
    } else {
      at = i + 1;
      return value;
    }
  }
  throw Exception("a value in spec '" + shortened(text) + "' opens a quote that it does not close");
}

}  // namespace

PluginSpec PluginSpec::parse(std::string const& text) {
  PluginSpec spec;
  if (text.empty()) throw Exception("empty SPEC: give a plugin name (`lanes plugins` lists them)");
  auto colon = text.find(':');
  spec.name = text.substr(0, colon);
  if (spec.name.empty()) throw Exception("empty plugin name in spec '" + shortened(text) + "'");
  if (colon == std::string::npos || colon + 1 == text.size()) return spec;  // "name" or "name:": no options
  std::string const rest = text.substr(colon + 1);
  for (std::size_t start = 0;;) {
    auto const comma = std::min(rest.find(',', start), rest.size());
    auto const eq = rest.find('=', start);
    if (comma == start) {
      throw Exception("empty option in spec '" + shortened(text) + "' (between commas, or at either end): remove it");
    }
    if (eq == std::string::npos || eq > comma || eq == start) {
      throw Exception("malformed option '" + shortened(rest.substr(start, comma - start)) + "' in spec '" +
                      shortened(text) + "' (expected key=value)");
    }
    auto at = eq + 1;
    std::string value;
    if (at < rest.size() && rest[at] == '"') {
      value = quotedValue(rest, at, text);
    } else {
      at = std::min(rest.find(',', at), rest.size());
      value = rest.substr(eq + 1, at - eq - 1);
    }
    spec.options.add(rest.substr(start, eq - start), std::move(value));
    if (at == rest.size()) break;
    start = at + 1;  // past the comma
    if (start == rest.size()) {
      throw Exception("empty option in spec '" + shortened(text) + "' (between commas, or at either end): remove it");
    }
  }
  return spec;
}

}  // namespace lanes
