#pragma once
// `lanes report` writes the HTML report of a run report or a scan directory
// (lanes.tools.report); `lanes compare` compares two runs or two scans
// (lanes.tools.compare). Both are Python tools, run by lanes' Python.

#include <CLI/CLI.hpp>

namespace lanes::cli {

// `exitCode` receives the command's exit status when the tool cannot be started.
void addReportCommands(CLI::App& app, int& exitCode);

}  // namespace lanes::cli
