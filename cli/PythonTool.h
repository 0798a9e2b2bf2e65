#pragma once
// The commands that are Python tools (the modules of the `lanes` package's
// lanes.tools: scan, report, compare), run as `python -m lanes.tools.NAME` by
// lanes' Python, with the package it was built or installed with
// (InstallLayout.h: exportPythonEnvironment()).

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace lanes::cli {

// Replaces this process with `python -m lanes.tools.TOOL ARGS...`, so that
// signals and the exit status are the tool's own. Returns (2, having said
// why) only on failure.
int execPythonTool(std::string const& tool, std::vector<std::string> const& arguments);

// Runs `python -m lanes.tools.TOOL ARGS...` as a child process and returns
// its exit status; 1 (having said why) if it cannot start or ends by a signal.
int runPythonTool(std::string const& tool, std::vector<std::string> const& arguments);

// A command that is a Python tool: every argument, --help included, is the
// tool's to parse (see its remaining()).
CLI::App* addToolCommand(CLI::App& app, char const* name, char const* description);

}  // namespace lanes::cli
