#include "PluginLibraries.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
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

std::string describe(PluginConflict const& conflict) {
  return conflict.firstLibrary.empty() ? "which is built into lanes" : "which '" + conflict.firstLibrary + "' registers already";
}

void load(std::string const& given) {
  std::error_code error;
  auto const status = fs::status(given, error);
  if (!fs::exists(status)) refuse(given, "is not found");
  if (!fs::is_regular_file(status)) refuse(given, "is not a file");
  auto const path = fs::canonical(given, error).string();
  if (error) refuse(given, "cannot be read: " + error.message());
  auto& libraries = loaded();
  if (std::any_of(libraries.begin(), libraries.end(), [&](Loaded const& l) { return l.path == path; })) return;
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
  libraries.push_back({path, std::move(stamp)});
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

void loadPluginLibraries(std::vector<std::string> const& paths) {
  for (auto const& path : paths) load(path);
  for (auto const& path : pluginPathLibraries()) load(path);
}

nlohmann::json loadedPluginLibraries() {
  auto libraries = nlohmann::json::array();
  for (auto const& library : loaded()) libraries.push_back({{"path", library.path}, {"stamp", library.stamp}});
  return libraries;
}

}  // namespace lanes::cli
