#pragma once
// `lanes report` writes the HTML report of a run report or a scan directory
// (tools/report.py); `lanes compare` compares two runs or two scans
// (tools/compare.py). Both are Python tools, run by the project's venv.

#include <CLI/CLI.hpp>

namespace lanes::cli {

// `exitCode` receives the command's exit status when the tool cannot be started.
void addReportCommands(CLI::App& app, int& exitCode);

}  // namespace lanes::cli
