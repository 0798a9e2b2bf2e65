#include "WholeNumber.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "lanes/core/Options.h"

namespace lanes::cli {

CLI::Validator wholeNumber(std::uint64_t min, std::uint64_t max) {
  auto const range = std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        bool const digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        auto const value = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
        if (!digits || errno == ERANGE || value < min || value > max) {
          return "expects a whole number from " + range + ", got '" + shortened(text) + "'";
        }
        return {};
      },
      "INT in [" + range + "]");
}

CLI::Validator positiveSeconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        double const value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(value) || value <= 0) {
          return "expects a number of seconds > 0, got '" + shortened(text) + "'";
        }
        return {};
      },
      "SECONDS > 0");
}

std::string failureMessage(CLI::App const*, CLI::Error const& error) {
  std::istringstream words(error.what());
  std::string line;
  // Longer than a value the validators quote, already shortened.
  for (std::string word; words >> word;) line += (line.empty() ? "" : " ") + shortened(word, 64);
  return "lanes: error: " + line + "\n";
}

}  // namespace lanes::cli
