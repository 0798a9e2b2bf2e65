#include "PluginsCommand.h"

#include <iomanip>
#include <iostream>

#include "lanes/core/PluginRegistry.h"

namespace lanes::cli {

namespace {

void printSection(char const* title, std::vector<PluginInfo> const& plugins) {
  std::cout << title << ":\n";
  for (auto const& plugin : plugins) {
    std::cout << "  " << std::left << std::setw(18) << plugin.name + " " << plugin.help << "\n";
  }
}

std::vector<PluginInfo> withRole(std::vector<PluginInfo> const& plugins, bool waiters) {
  std::vector<PluginInfo> result;
  for (auto const& plugin : plugins) {
    if ((plugin.role != PluginRole::Module) == waiters) result.push_back(plugin);
  }
  return result;
}

}  // namespace

void addPluginsCommand(CLI::App& app) {
  auto* plugins = app.add_subcommand("plugins", "List the sources, modules, waiters and outputs a SPEC can name");
  plugins->callback([] {
    auto const& registry = PluginRegistry::instance();
    printSection("sources (--source)", registry.sources());
    printSection("modules (--module)", withRole(registry.modules(), false));
    printSection("waiters (--waiter)", withRole(registry.modules(), true));
    printSection("outputs (--output)", registry.outputs());
  });
}

}  // namespace lanes::cli
