#pragma once
// What ran, where: a report's `provenance`, so that a figure can be compared
// a week later. Each layer fills in what it knows: current() the machine as
// the process sees it and the software it links (the libraries that plugins
// register in lanes/core/LibraryVersions.h, ROOT's among them, so that the
// monitor learns of no library it does not link); the command line
// the command, the menu and the commit `lanes` was built from; the node layer
// the physical cores and NUMA nodes (hwloc).
//
// JSON: {command [argv], menu {path, sha256} or null, host, cpu_model,
// cpu_id, cores {logical, physical}, numa_nodes, kernel, lanes_version,
// git_commit {commit, dirty} or null, the registered libraries' keys
// (root_version), tbb_version, compiler, started (UTC, ISO 8601)}; a figure
// not known is null.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lanes {

// Immutable value type (once its layers have filled it in).
struct Provenance {
  std::vector<std::string> command;  // argv as run
  std::string menu;                  // its absolute path; empty: no menu
  std::string menuSha256;
  std::string host;
  std::string cpuModel;
  std::string cpuIdentity;  // e.g. "family 25 model 17 stepping 1": one model name spans CPU generations
  unsigned logicalCores = 0;   // the PUs online
  unsigned physicalCores = 0;  // 0: not known
  unsigned numaNodes = 0;      // 0: not known
  std::string kernel;          // sysname, release and machine, as uname gives them
  std::string lanesVersion;
  std::string gitCommit;  // empty: not built from a git checkout
  bool gitDirty = false;  // tracked files differed from the commit when it was built
  std::map<std::string, std::string> libraries;  // {key: version}, e.g. {"root_version": "6.40/00"}
  std::string tbbVersion;  // the runtime's, and the headers' it was built with
  std::string compiler;
  std::string started;  // UTC, ISO 8601, to the second

  // This process, now: host, CPU model, logical cores, kernel, the versions
  // and the registered libraries', `started` the current time.
  static Provenance current();

  nlohmann::json toJson() const;
};

}  // namespace lanes
