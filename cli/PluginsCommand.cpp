#include "PluginsCommand.h"

#include <iomanip>
#include <iostream>
#include <memory>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "OptionalPlugins.h"
#include "PluginLibraries.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::cli {

namespace {

// The options the framework itself takes from a SPEC, whatever the plugin.
constexpr char const* kGenericOptions = R"(
options of every SPEC (key=value, separated by commas; a key given twice is an error, except list options;
a value that holds a comma goes in double quotes: file="a,b.root", in which \" is a quote and \\ a backslash):
  label=NAME         modules and outputs: the name in paths, errors and the report (default: the plugin name,
                     numbered if repeated; a label given twice is an error)
  repeat=N           sources: read the first N events (1 to 100000000) once into memory and cycle them;
                     cycled events get new event numbers; such a source never ends: give -n or --endless
  select=PATH        outputs (list): write an event only when one of these paths accepts it (default: every event)
  keep=GLOB          outputs (list): write only the products matching a glob ('*', '?'); one that matches no
                     product is an error (default: every product)
  products=GLOB      per-product waiters (list): only for the products matching; one that matches none is an error
  file=PATH          sources (list): an input file (a regular file: a FIFO or a device is refused); outputs:
                     the file written (under PATH.partial-PID until the job succeeds; claimed in PATH.lanes-claim
                     while the job runs: a second job that would write it is refused); event-time: its times.
                     No file the job writes may be one it reads or writes elsewhere (also through a symlink or a
                     hard link): such a job is refused before it runs
  files=LIST         sources: a text file naming input files, one per line; blank lines and lines starting
                     with '#' are skipped; relative paths are relative to the list's directory
  profile=PATH       synthetic: the product sizes (JSON from lanes.tools.derive_profile)
)";

void printSection(char const* title, std::vector<PluginInfo> const& plugins) {
  std::cout << title << ":\n";
  for (auto const& plugin : plugins) {
    std::cout << "  " << std::left << std::setw(18) << plugin.name + " " << plugin.help;
    if (!plugin.library.empty()) std::cout << " [from " << plugin.library << "]";
    std::cout << "\n";
  }
}

// The options a SPEC of `plugin` (of `kind`) takes, as keys ("file") and
// families of keys ("size." for size.<label>=BYTES): those the framework
// takes from a SPEC of its kind (kGenericOptions), and those its help names
// (key=VALUE, key.<label>=VALUE), as every plugin's help does.
std::pair<std::set<std::string>, std::set<std::string>> optionsOf(std::string const& kind, PluginInfo const& plugin) {
  std::set<std::string> keys, prefixes;
  if (kind == "source") keys.insert("repeat");
  if (kind == "module" || kind == "output") keys.insert("label");
  if (kind == "output") keys.insert("select");
  if (plugin.role == PluginRole::PerProductWaiter) keys.insert("products");
  static std::regex const option(R"((^|[\s(,])([a-z][a-z0-9-]*)(\.<[a-z]+>)?=)");
  for (std::sregex_iterator it(plugin.help.begin(), plugin.help.end(), option), end; it != end; ++it) {
    if ((*it)[3].matched) {
      prefixes.insert((*it)[2].str() + ".");
    } else {
      keys.insert((*it)[2].str());
    }
  }
  return {keys, prefixes};
}

// [{kind, name, help, options, option_prefixes, library (null: built in)}], in the order of the text.
nlohmann::json toJson(std::vector<std::pair<char const*, std::vector<PluginInfo>>> const& sections) {
  auto plugins = nlohmann::json::array();
  for (auto const& [kind, infos] : sections) {
    for (auto const& info : infos) {
      auto const [keys, prefixes] = optionsOf(kind, info);
      plugins.push_back({{"kind", kind},
                         {"name", info.name},
                         {"help", info.help},
                         {"options", keys},
                         {"option_prefixes", prefixes},
                         {"library", info.library.empty() ? nlohmann::json() : nlohmann::json(info.library)}});
    }
  }
  return plugins;
}

std::vector<PluginInfo> withRole(std::vector<PluginInfo> const& plugins, bool waiters) {
  std::vector<PluginInfo> result;
  for (auto const& plugin : plugins) {
    if ((plugin.role != PluginRole::Module) == waiters) result.push_back(plugin);
  }
  return result;
}

struct PluginsArguments {
  std::vector<std::string> libraries;
  bool json = false;
};

}  // namespace

void addPluginsCommand(CLI::App& app) {
  auto arguments = std::make_shared<PluginsArguments>();
  auto* plugins = app.add_subcommand("plugins", "List the sources, modules, waiters and outputs a SPEC can name, "
                                                "and the plugin library each one comes from");
  addPluginLibraryOption(*plugins, arguments->libraries);
  plugins->add_flag("--json", arguments->json,
                    "Print JSON: [{kind, name, help, options, option_prefixes, library (null: built in)}], the "
                    "options as the help names them (option_prefixes: families of options, such as size.<label>=)");
  plugins->callback([arguments] {
    loadPluginLibraries(arguments->libraries);
    loadEveryOptionalPlugin();
    auto const& registry = PluginRegistry::instance();
    std::vector<std::pair<char const*, std::vector<PluginInfo>>> const sections{
        {"source", registry.sources()},
        {"module", withRole(registry.modules(), false)},
        {"waiter", withRole(registry.modules(), true)},
        {"output", registry.outputs()}};
    if (arguments->json) {
      std::cout << toJson(sections).dump(1) << "\n";
      return;
    }
    printSection("sources (--source)", sections[0].second);
    printSection("modules (--module)", sections[1].second);
    printSection("waiters (--waiter)", sections[2].second);
    printSection("outputs (--output)", sections[3].second);
    std::cout << kGenericOptions;
  });
}

}  // namespace lanes::cli
