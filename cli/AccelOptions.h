#pragma once
// `lanes run --accel BACKEND --accel-strategy STRATEGY`: where the
// accelerator modules run and how they complete (plugins/accel/Settings.h).

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace lanes::cli {

// Adds the two options to `run`. After parsing, they are checked (a bad
// backend, strategy or device option throws lanes::Exception) and set as the
// process's accelerator settings, before the job's modules are constructed.
void addAccelOptions(CLI::App& run);

// The run report's `accel` section (accel::toJson() of the settings), or
// null under --accel none.
nlohmann::json accelReport();

}  // namespace lanes::cli
