#include "PluginLibraries.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "ElfSection.h"
#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/Version.h"

namespace lanes::cli {

namespace {

namespace fs = std::filesystem;

struct Loaded {
  std::string path;  // canonical
  std::string stamp;
  char const* from;  // how it was named (PluginOrigin)
};

std::vector<Loaded>& loaded() {
  static std::vector<Loaded> libraries;
  return libraries;
}

[[noreturn]] void refuse(std::string const& path, std::string const& why) {
  throw Exception("plugin library '" + path + "' " + why);
}

// "_ZN5lanes3fooEv" -> "lanes::foo()"; anything else unchanged.
std::string demangled(std::string const& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : symbol;
}

// What dlerror() says, without the path it starts with, and with a missing
// symbol demangled.
std::string loadError(std::string const& path) {
  char const* text = ::dlerror();
  std::string error = text ? text : "unknown error";
  if (error.rfind(path + ": ", 0) == 0) error.erase(0, path.size() + 2);
  std::string const undefined = "undefined symbol: ";
  if (error.rfind(undefined, 0) == 0) {
    auto symbol = error.substr(undefined.size());
    if (auto const comma = symbol.find(','); comma != std::string::npos) symbol.resize(comma);  // ", version X"
    error = undefined + demangled(symbol);
  }
  return error;
}

// The stamp of the library at `path` (canonical), checked against this lanes'.
std::string checkedStamp(std::string const& path) {
  auto const stamp = readElfSection(path, ".lanes_plugin");
  if (!stamp) refuse(path, "is not a lanes plugin library (it has no lanes stamp: build it with lanes_add_plugin)");
  std::string const text(stamp->c_str());  // the section holds the string and its terminating zero
  if (text != LANES_PLUGIN_STAMP) {
    refuse(path, "was built against " + text + ", but this is " + LANES_PLUGIN_STAMP + ": rebuild it against this lanes");
  }
  return text;
}

// Why someone else than you and root could plant code at `path` (a library
// or a directory), or "": it is owned by another user, or writable by others
// than its owner. A directory with the sticky bit (/tmp) lets others add
// entries but not replace yours: safe above a library, if `stickyIsSafe`.
std::string plantable(std::string const& path, bool stickyIsSafe) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return {};  // what is missing is said elsewhere
  if (status.st_uid != ::geteuid() && status.st_uid != 0) {
    return "is owned by uid " + std::to_string(status.st_uid) + ", neither you nor root";
  }
  bool const sticky = (status.st_mode & S_ISVTX) != 0;
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) == 0 || (stickyIsSafe && sticky)) return {};
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(status.st_mode & 07777));
  return std::string("is writable by others than its owner (mode ") + mode + ")";
}

// The first directory above `path` (canonical) that someone else could plant
// a library in, with why; {"", ""} if none.
std::pair<std::string, std::string> plantableDirectoryAbove(fs::path const& path) {
  for (auto directory = path.parent_path(); !directory.empty(); directory = directory.parent_path()) {
    if (auto why = plantable(directory.string(), true); !why.empty()) return {directory.string(), why};
    if (directory == directory.root_path()) break;
  }
  return {};
}

// Refuses a library (canonical) that someone else than you and root could
// have written, or replaced through a directory above it.
void requireUnplantable(std::string const& path) {
  if (auto const why = plantable(path, false); !why.empty()) {
    refuse(path, why + ": anyone who can change it runs code in your jobs (chmod go-w, or chown it)");
  }
  if (auto const [directory, why] = plantableDirectoryAbove(path); !why.empty()) {
    refuse(path, "lies in '" + directory + "', which " + why + ": anyone who can write there can replace it");
  }
}

std::string describe(PluginConflict const& conflict) {
  return conflict.firstLibrary.empty() ? "which is built into lanes" : "which '" + conflict.firstLibrary + "' registers already";
}

void load(std::string const& given, char const* from) {
  std::error_code error;
  auto const status = fs::status(given, error);
  if (!fs::exists(status)) refuse(given, "is not found");
  if (!fs::is_regular_file(status)) refuse(given, "is not a file");
  auto const path = fs::canonical(given, error).string();
  if (error) refuse(given, "cannot be read: " + error.message());
  auto& libraries = loaded();
  if (std::any_of(libraries.begin(), libraries.end(), [&](Loaded const& l) { return l.path == path; })) return;
  requireUnplantable(path);
  auto stamp = checkedStamp(path);
  auto& registry = PluginRegistry::instance();
  registry.beginLibrary(path);
  // Kept loaded for the life of the process: its plugins are in the registry.
  void* const handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto const conflicts = registry.endLibrary();
  if (!handle) refuse(path, "cannot be loaded: " + loadError(path));
  if (!conflicts.empty()) {
    auto const& first = conflicts.front();
    refuse(path, "registers " + first.kind + " '" + first.name + "', " + describe(first) +
                     (conflicts.size() > 1 ? " (and " + std::to_string(conflicts.size() - 1) + " more names)" : ""));
  }
  libraries.push_back({path, std::move(stamp), from});
}

// Refuses a directory (canonical) of LANES_PLUGIN_PATH that someone else
// than you and root could add a library to: every *.so there is loaded, so
// here the sticky bit is no help.
void requireUnplantableDirectory(fs::path const& directory) {
  auto const fail = [&](std::string const& why) {
    throw Exception(std::string(kPluginPathVariable) + " names '" + directory.string() + "', which " + why);
  };
  if (auto const why = plantable(directory.string(), false); !why.empty()) {
    fail(why + ": anyone who can write there runs code in your jobs (chmod go-w, or chown it)");
  }
  if (auto const [above, why] = plantableDirectoryAbove(directory); !why.empty()) {
    fail("lies in '" + above + "', which " + why + ": anyone who can write there can replace it");
  }
}

// Every *.so in the directories of LANES_PLUGIN_PATH, sorted by name within each.
std::vector<std::string> pluginPathLibraries() {
  std::vector<std::string> libraries;
  char const* variable = std::getenv(kPluginPathVariable);
  std::string const list = variable ? variable : "";
  for (std::size_t begin = 0; begin <= list.size();) {
    auto end = list.find(':', begin);
    if (end == std::string::npos) end = list.size();
    auto const directory = list.substr(begin, end - begin);
    begin = end + 1;
    if (directory.empty()) continue;
    std::error_code error;
    if (!fs::is_directory(directory, error)) {
      throw Exception(std::string(kPluginPathVariable) + " names '" + directory + "', which is not a directory");
    }
    requireUnplantableDirectory(fs::canonical(directory, error));
    std::vector<std::string> found;
    for (auto const& entry : fs::directory_iterator(directory, error)) {
      if (entry.path().extension() == ".so") found.push_back(entry.path().string());
    }
    if (error) throw Exception(std::string("cannot read directory '") + directory + "' (" + kPluginPathVariable + "): " + error.message());
    std::sort(found.begin(), found.end());
    libraries.insert(libraries.end(), found.begin(), found.end());
  }
  return libraries;
}

}  // namespace

void addPluginLibraryOption(CLI::App& command, std::vector<std::string>& paths) {
  command
      .add_option("--plugin-library", paths,
                  "Load a plugin library (built with lanes_add_plugin) whose plugins a SPEC can then name (repeatable; "
                  "also: the directories of LANES_PLUGIN_PATH, whose *.so are all loaded)")
      ->allow_extra_args(false);
}

void loadPluginLibraries(std::vector<std::string> const& paths, std::vector<std::string> const& menuPaths) {
  for (auto const& path : paths) load(path, "--plugin-library");
  for (auto const& path : menuPaths) load(path, "menu");
  for (auto const& path : pluginPathLibraries()) load(path, kPluginPathVariable);
}

void loadOptionalPluginLibrary(std::string const& path) { load(path, "optional"); }

nlohmann::json loadedPluginLibraries() {
  auto libraries = nlohmann::json::array();
  for (auto const& library : loaded()) {
    libraries.push_back({{"path", library.path}, {"stamp", library.stamp}, {"from", library.from}});
  }
  return libraries;
}

}  // namespace lanes::cli
