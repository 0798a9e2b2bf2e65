#pragma once
// `lanes scan`: measures a grid of job configurations. The scan itself is a
// Python tool (lanes.tools.scan), run by lanes' Python; this command only
// starts it, handing it this very binary so that every point runs this build.

#include <CLI/CLI.hpp>

namespace lanes::cli {

// `exitCode` receives the command's exit status when the tool cannot be started.
void addScanCommand(CLI::App& app, int& exitCode);

}  // namespace lanes::cli
