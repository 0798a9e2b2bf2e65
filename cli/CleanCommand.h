#pragma once
// Leftovers of killed jobs: the partial files and multi-process parts
// (lanes/core/TemporaryName.h) whose processes are gone. A new job names
// those of its outputs; `lanes clean DIR` removes every one in DIR.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "lanes/core/JobConfig.h"

namespace lanes::cli {

// The files the job's outputs write (those that write one take it as `file=`).
std::vector<std::string> outputFiles(JobConfig const& config);

// One warning line on stderr per leftover of `files`.
void warnAboutStalePartials(std::vector<std::string> const& files);

// Removes this process's partial files of `files`, so that a job that
// aborts leaves nothing behind; safe while other threads still write them.
void removeOwnPartials(std::vector<std::string> const& files);

void addCleanCommand(CLI::App& app, int& exitCode);

}  // namespace lanes::cli
