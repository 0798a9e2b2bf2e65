#pragma once
// `lanes supervise JOBFILE`: the node supervisor (lanes/node/Supervisor.h).

#include <CLI/CLI.hpp>

namespace lanes::cli {

// `exitCode` receives 0 when every job exited with 0, else 1.
void addSuperviseCommand(CLI::App& app, int& exitCode);

}  // namespace lanes::cli
