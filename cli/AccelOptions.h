#pragma once
// `lanes run --accel BACKEND --accel-strategy STRATEGY`: where the
// accelerator modules run and how they complete (plugins/accel/Settings.h).

#include <CLI/CLI.hpp>

namespace lanes::cli {

// Adds the two options to `run`. After parsing, they are checked (a bad
// backend, strategy or device option throws lanes::Exception) and set as the
// process's accelerator settings, before the job's modules are constructed.
void addAccelOptions(CLI::App& run);

}  // namespace lanes::cli
