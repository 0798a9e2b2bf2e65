#include "OptionalPlugins.h"

#include <algorithm>
#include <filesystem>

#include "InstallLayout.h"
#include "PluginLibraries.h"
#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::cli {

namespace {

namespace fs = std::filesystem;

bool registered(std::string const& name) {
  auto const& registry = PluginRegistry::instance();
  return registry.findSource(name) || registry.findModule(name) || registry.findOutput(name);
}

}  // namespace

void loadOptionalPlugins(JobConfig const& config) {
  std::vector<std::string> names{config.source.name};
  for (auto const& waiter : config.waiters) names.push_back(waiter.name);
  for (auto const& module : config.modules) names.push_back(module.plugin.name);
  for (auto const& output : config.outputs) names.push_back(output.plugin.name);
  for (auto const& name : names) {
    std::error_code error;
    auto const library = optionalPluginLibrary(name);
    if (!name.empty() && !registered(name) && fs::is_regular_file(library, error)) loadOptionalPluginLibrary(library);
  }
}

void loadEveryOptionalPlugin() {
  auto const directory = optionalPluginDirectory();
  std::error_code error;
  if (!fs::is_directory(directory, error)) return;
  std::vector<std::string> libraries;
  for (auto const& entry : fs::directory_iterator(directory, error)) {
    auto const name = entry.path().filename().string();
    if (name.rfind("liblanes_", 0) == 0 && entry.path().extension() == ".so") libraries.push_back(entry.path().string());
  }
  std::sort(libraries.begin(), libraries.end());
  for (auto const& library : libraries) loadOptionalPluginLibrary(library);
}

void requireOneProcessPlugins(JobConfig const& config, std::string const& how) {
  for (auto const& module : config.modules) {
    if (module.plugin.name != "python") continue;
    throw Exception("module '" + module.label + "' is a Python analyzer, which runs in one process (one "
                    "interpreter, one set of results): " + how + " cannot run it");
  }
}

}  // namespace lanes::cli
