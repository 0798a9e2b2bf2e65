#pragma once
// `lanes topology`: the machine (or a synthetic / XML one) as hwloc sees it,
// and what a pinning strategy would choose on it.

#include <CLI/CLI.hpp>

namespace lanes::cli {

// The help text of every command's --topology option.
extern char const* const topologyOptionHelp;

void addTopologyCommand(CLI::App& app);

}  // namespace lanes::cli
