#pragma once
// Menu files: a job's source, modules, paths and outputs in TOML, like an HLT
// menu. See examples/*.toml. Every key of a plugin table other than the
// structural ones (label, plugin, select) becomes a plugin option: arrays
// become repeated options and inline tables prefixed ones
// (`produces = { tracks = 2000 }` is `produces.tracks=2000`). String values
// that start with "./" or "../" are paths relative to the menu file.

#include <string>
#include <vector>

#include "lanes/core/JobConfig.h"

namespace lanes::cli {

struct MenuJobSettings {
  unsigned threads = 0;  // 0: not set by the menu
  unsigned lanes = 0;
  unsigned concurrentLumis = 0;  // job.concurrent-lumis; 0: not set
  unsigned concurrentRuns = 0;   // job.concurrent-runs; 0: not set
  std::uint64_t events = 0;
  bool hasEvents = false;
  std::vector<std::string> pluginLibraries;  // job.plugin-libraries, relative paths made relative to the menu's directory
};

// Reads `path` into `config` (replacing its source if the menu has one and
// appending modules, waiters, paths and outputs). Throws lanes::Exception
// naming the file (and line, for syntax errors) on any problem.
MenuJobSettings loadMenu(std::string const& path, JobConfig& config);

}  // namespace lanes::cli
