#include "mimicry/EventTimes.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "lanes/core/Exception.h"

namespace lanes::mimicry {
namespace {

std::string trimmed(std::string const& text) {
  auto const first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The time on one line, or nothing for a blank or comment line.
std::optional<double> parseLine(std::string const& path, std::size_t number, std::string const& line) {
  std::string const text = trimmed(line.substr(0, line.find('#')));
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double const seconds = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(seconds) || seconds < 0) {
    throw Exception("event times file '" + path + "' line " + std::to_string(number) +
                    ": expected a time in seconds >= 0, got '" + text + "'");
  }
  return seconds;
}

}  // namespace

EventTimes EventTimes::load(std::string const& path) {
  std::ifstream in(path);
  if (!in) throw Exception("event times file '" + path + "': cannot open it for reading");
  std::vector<double> seconds;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (auto time = parseLine(path, number, line)) seconds.push_back(*time);
  }
  if (in.bad()) throw Exception("event times file '" + path + "': read error");
  if (seconds.empty()) throw Exception("event times file '" + path + "' holds no times");
  return EventTimes(std::move(seconds));
}

}  // namespace lanes::mimicry
