#pragma once
// What a job writes is claimed (lanes/core/PathClaim.h): one live writer per
// path, and a record of what killed jobs left. A new job claims its files
// and names those leftovers; `lanes clean DIR` lists them, and with --yes
// removes them.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "lanes/core/JobConfig.h"
#include "lanes/core/JobFiles.h"

namespace lanes::cli {

// The files the job's outputs write (those that write one take it as `file=`).
std::vector<std::string> outputFiles(JobConfig const& config);

// Claims every file of `files` that the job writes (`ranks`: an MPI job's),
// and warns in one line on stderr about each file that killed jobs left of
// them. Throws lanes::Exception if another live job writes one of them.
void claimJobFiles(std::vector<JobFile> const& files, unsigned ranks = 0);

// Removes this process's partial files of `files`, so that a job that
// aborts leaves nothing behind; safe while other threads still write them.
void removeOwnPartials(std::vector<std::string> const& files);

void addCleanCommand(CLI::App& app, int& exitCode);

}  // namespace lanes::cli
