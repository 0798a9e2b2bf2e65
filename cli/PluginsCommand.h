#pragma once
// `lanes plugins`: what can be named in a SPEC.

#include <CLI/CLI.hpp>

namespace lanes::cli {

void addPluginsCommand(CLI::App& app);

}  // namespace lanes::cli
