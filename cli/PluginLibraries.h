#pragma once
// Plugin libraries: shared libraries built outside lanes against an installed
// lanes (find_package(lanes), lanes_add_plugin) whose static registrars add
// sources, modules and outputs to this process's one registry as they load.
// A library holds no copy of lanes: it leaves lanes' symbols undefined, and
// the lanes executable exports them (cmake/lanes.dynamic-list), so a process
// has one core, one registry and one oneTBB runtime. Before a library is
// loaded, lanes reads its stamp from the file (the lanes release and plugin
// API it was built against: section .lanes_plugin, cmake/PluginStamp.cpp)
// and refuses one that is not its own.
//
// Externally synchronised by start-up: libraries load on the main thread
// before any job thread starts, and before a multi-process job forks.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace lanes::cli {

// The variable naming directories whose *.so are all loaded (separated by ':').
inline constexpr char const* kPluginPathVariable = "LANES_PLUGIN_PATH";

// --plugin-library PATH (repeatable) on `command`, into `paths`.
void addPluginLibraryOption(CLI::App& command, std::vector<std::string>& paths);

// Loads the libraries at `paths` (--plugin-library), then those at
// `menuPaths` (a menu's plugin-libraries), then every *.so in the
// directories that LANES_PLUGIN_PATH names (by name within each); a file
// loaded already (by whatever path) is not loaded again. Throws
// lanes::Exception (one line) for a library that is missing, that someone
// else than you and root could have planted (it, or a directory above it,
// is owned by another user or writable by others than its owner; a
// directory with the sticky bit above it is safe, but not as a directory of
// LANES_PLUGIN_PATH, whose every *.so loads), is no lanes plugin library (no
// stamp), was built against another lanes (naming both), or cannot be
// loaded (an undefined symbol: named) — before any of its code runs — and,
// once loaded, for a name it registers that was taken (by lanes or another
// library).
void loadPluginLibraries(std::vector<std::string> const& paths, std::vector<std::string> const& menuPaths = {});

// Loads one of lanes' own optional plugin libraries (OptionalPlugins.h),
// checked as any other.
void loadOptionalPluginLibrary(std::string const& path);

// The libraries loaded, in order: [{path, stamp, from}] (for the run
// report), `from` saying how each was named: "--plugin-library", "menu",
// "LANES_PLUGIN_PATH", or "optional" (lanes' own, for a plugin a SPEC names).
nlohmann::json loadedPluginLibraries();

}  // namespace lanes::cli
