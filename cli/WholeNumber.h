#pragma once
// Numbers typed on the command line: a CLI11 validator that refuses, in one
// readable line, anything but a decimal whole number in a range, before
// CLI11 converts it (and quotes at most 40 characters of what was typed).

#include <cstdint>

#include <CLI/CLI.hpp>

namespace lanes::cli {

CLI::Validator wholeNumber(std::uint64_t min, std::uint64_t max);

// Greater than 0 and finite (seconds).
CLI::Validator positiveSeconds();

// CLI11's failure message, as lanes prints every error: one line,
// "lanes: error: ...", with long words (a 300-digit number) shortened.
std::string failureMessage(CLI::App const* app, CLI::Error const& error);

}  // namespace lanes::cli
