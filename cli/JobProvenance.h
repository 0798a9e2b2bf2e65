#pragma once
// A report's provenance as the command line completes it (lanes/monitor/
// Provenance.h): the command as run, the menu and its digest, the commit
// this `lanes` was built from (asked of git at every build: CMakeLists.txt's
// lanes_git_state), the machine's physical cores and NUMA nodes (hwloc).

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "lanes/monitor/Provenance.h"

namespace lanes::cli {

// This process's argv, as /proc/self/cmdline gives it.
std::vector<std::string> commandLine();

// The provenance of a job starting now; `menu` is its menu file (empty:
// none). Throws lanes::Exception if the menu cannot be read.
Provenance jobProvenance(std::string const& menu);

// A merged report's (multi-process, MPI) provenance is its parent's; this
// adds `hosts`, the distinct hosts its parts ran on (workers[].host, else
// the part's own report's provenance), in the parts' order.
void addPartHosts(nlohmann::json& report);

// `lanes provenance`: prints, as JSON, what a report made here now would
// say of the machine and the build (`lanes scan` records it once per scan).
void addProvenanceCommand(CLI::App& app);

}  // namespace lanes::cli
