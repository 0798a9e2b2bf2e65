#pragma once
// `lanes model REPORT.json`: predicts the menu's rate, stalls and bottleneck
// at other thread, lane and process counts (model/), and writes the
// prediction as a run report and its page.

#include <CLI/CLI.hpp>

namespace lanes::cli {

// Adds the `model` subcommand; `exitCode` receives its exit status.
void addModelCommand(CLI::App& app, int& exitCode);

}  // namespace lanes::cli
