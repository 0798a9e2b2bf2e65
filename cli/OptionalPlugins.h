#pragma once
// lanes' optional plugin libraries: plugins of lanes' own that would bring a
// large runtime into every lanes process (the `python` module: libpython and
// its interpreter; the `hdf5` source and output: HDF5 and the thirty-odd
// libraries it needs, curl's among them), each built as a plugin library of its own,
// lib/lanes/optional/liblanes_NAME.so (InstallLayout.h), which registers plugin
// NAME.
// A job loads one only when one of its SPECs names that plugin; `lanes
// plugins` loads them all, so that its list is complete.
//
// Externally synchronised by start-up, as PluginLibraries.h.

#include "lanes/core/JobConfig.h"

namespace lanes::cli {

// Loads the optional library of each plugin that `config` names and no
// library loaded so far registers (throws as loadPluginLibraries()).
void loadOptionalPlugins(JobConfig const& config);

// Loads every optional library there is.
void loadEveryOptionalPlugin();

// Refuses a job of several processes (`how`: "--processes", "an MPI job")
// whose config names a plugin that runs in one process only: the `python`
// module, whose interpreter, results and GIL are one process's.
void requireOneProcessPlugins(JobConfig const& config, std::string const& how);

}  // namespace lanes::cli
