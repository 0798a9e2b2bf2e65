#pragma once
// `lanes inspect FILE`: the TTrees and RNTuples of a ROOT file, their
// products with type and bytes per event, and a synthetic-source profile.

#include <CLI/CLI.hpp>

namespace lanes::cli {

void addInspectCommand(CLI::App& app);

}  // namespace lanes::cli
