#include "Menu.h"

#include <filesystem>
#include <limits>
#include <sstream>

#include <toml++/toml.h>

#include "ConditionsOptions.h"
#include "lanes/core/Exception.h"

namespace lanes::cli {

namespace {

class MenuReader {
 public:
  explicit MenuReader(std::string path) : path_(std::move(path)), directory_(std::filesystem::path(path_).parent_path()) {}

  [[noreturn]] void fail(std::string const& message) const {
    Exception error(message);
    error.addContext({{}, {}, {}, {}, path_});
    throw error;
  }

  std::string text(toml::node const& node, std::string const& where) const {
    if (auto s = node.value<std::string>()) return resolve(*s);
    if (auto i = node.value_exact<std::int64_t>()) return std::to_string(*i);
    if (auto d = node.value_exact<double>()) {
      std::ostringstream os;
      os.precision(17);
      os << *d;
      return os.str();
    }
    if (auto b = node.value_exact<bool>()) return *b ? "true" : "false";
    fail(where + " must be a string, number or boolean");
  }

  void addOption(Options& options, std::string const& key, toml::node const& node, std::string const& where) const {
    if (auto const* array = node.as_array()) {
      for (auto const& element : *array) options.add(key, text(element, where + "." + key));
    } else if (auto const* table = node.as_table()) {
      for (auto const& [subkey, value] : *table) {
        addOption(options, key + "." + std::string(subkey.str()), value, where + "." + key);
      }
    } else {
      options.add(key, text(node, where + "." + key));
    }
  }

  std::string required(toml::table const& table, char const* key, std::string const& where) const {
    auto value = table[key].value<std::string>();
    if (!value || value->empty()) fail(where + " needs a string '" + key + "'");
    return *value;
  }

  std::vector<std::string> strings(toml::table const& table, char const* key, std::string const& where) const {
    std::vector<std::string> result;
    auto const* node = table.get(key);
    if (!node) return result;
    auto const* array = node->as_array();
    if (!array) fail(where + "." + key + " must be an array of strings");
    for (auto const& element : *array) {
      auto value = element.value<std::string>();
      if (!value) fail(where + "." + key + " must be an array of strings");
      result.push_back(*value);
    }
    return result;
  }

  // A plugin table: `plugin` names the plugin, the other keys (but the
  // structural ones) are its options.
  PluginSpec plugin(toml::table const& table, std::string const& where,
                    std::initializer_list<char const*> structural) const {
    PluginSpec spec{required(table, "plugin", where), {}};
    for (auto const& [key, value] : table) {
      auto const name = std::string(key.str());
      bool skip = name == "plugin";
      for (auto const* s : structural) skip = skip || name == s;
      if (!skip) addOption(spec.options, name, value, where);
    }
    return spec;
  }

  template <typename F>
  void eachTable(toml::table const& menu, char const* key, F&& f) const {
    auto const* node = menu.get(key);
    if (!node) return;
    auto const* array = node->as_array();
    if (!array) fail(std::string("'") + key + "' must be an array of tables: write [[" + key + "]]");
    int index = 0;
    for (auto const& element : *array) {
      auto const* table = element.as_table();
      auto where = std::string(key) + "[" + std::to_string(index++) + "]";
      if (!table) fail(where + " must be a table");
      f(*table, where);
    }
  }

  std::uint64_t whole(toml::table const& table, char const* key, std::uint64_t max) const {
    auto const* node = table.get(key);
    if (!node) return 0;
    auto value = node->value_exact<std::int64_t>();
    if (!value || *value < 0 || static_cast<std::uint64_t>(*value) > max) {
      fail(std::string("job.") + key + " must be an integer from 0 to " + std::to_string(max));
    }
    return static_cast<std::uint64_t>(*value);
  }

  MenuJobSettings read(JobConfig& config) const {
    toml::table menu;
    try {
      menu = toml::parse_file(path_);
    } catch (toml::parse_error const& error) {
      auto const line = error.source().begin.line;
      std::string description(error.description());
      if (!std::filesystem::exists(path_)) fail("cannot open menu file");
      fail("syntax error at line " + std::to_string(line) + ": " + description);
    }
    for (auto const& [key, value] : menu) {
      auto const name = std::string(key.str());
      if (name != "job" && name != "source" && name != "module" && name != "waiter" && name != "path" && name != "output" &&
          name != "conditions") {
        fail("unknown section '" + name + "' (known: job, source, module, waiter, path, output, conditions)");
      }
    }
    MenuJobSettings settings;
    if (auto const* job = menu["job"].as_table()) {
      for (auto const& [key, value] : *job) {
        auto const name = std::string(key.str());
        if (name != "threads" && name != "lanes" && name != "events" && name != "plugin-libraries" &&
            name != "concurrent-lumis" && name != "concurrent-runs") {
          fail("unknown key job." + name +
               " (known: threads, lanes, events, concurrent-lumis, concurrent-runs, plugin-libraries)");
        }
      }
      settings.threads = static_cast<unsigned>(whole(*job, "threads", std::numeric_limits<unsigned>::max()));
      settings.lanes = static_cast<unsigned>(whole(*job, "lanes", std::numeric_limits<unsigned>::max()));
      for (auto [key, value] : {std::pair{"concurrent-lumis", &settings.concurrentLumis},
                                std::pair{"concurrent-runs", &settings.concurrentRuns}}) {
        if (!job->contains(key)) continue;
        *value = static_cast<unsigned>(whole(*job, key, std::numeric_limits<unsigned>::max()));
        if (*value == 0) fail(std::string("job.") + key + " must be at least 1");
      }
      settings.hasEvents = job->contains("events");
      settings.events = whole(*job, "events", std::numeric_limits<std::int64_t>::max());
      for (auto const& library : strings(*job, "plugin-libraries", "job")) {
        settings.pluginLibraries.push_back((directory_ / library).lexically_normal().string());
      }
    }
    if (menu.empty()) fail("the menu is empty: it has no [job], [source], [[module]], [[waiter]], [[path]] or [[output]]");
    if (menu.contains("source") && !menu["source"].is_table()) fail("'source' must be a table: write [source]");
    if (auto const* source = menu["source"].as_table()) config.source = plugin(*source, "source", {});
    eachTable(menu, "waiter", [&](auto const& table, auto const& where) { config.waiters.push_back(plugin(table, where, {})); });
    eachTable(menu, "module", [&](auto const& table, auto const& where) {
      config.modules.push_back({required(table, "label", where), plugin(table, where, {"label"})});
    });
    eachTable(menu, "path", [&](auto const& table, auto const& where) {
      config.paths.push_back({required(table, "name", where), strings(table, "modules", where)});
    });
    eachTable(menu, "output", [&](auto const& table, auto const& where) {
      config.outputs.push_back({required(table, "label", where), plugin(table, where, {"label", "select"}), strings(table, "select", where)});
    });
    eachTable(menu, "conditions", [&](auto const& table, auto const& where) {
      PluginSpec spec{required(table, "record", where), {}};
      for (auto const& [key, value] : table) {
        if (key != "record") addOption(spec.options, std::string(key.str()), value, where);
      }
      try {
        config.conditions.push_back(conditionsRecord(spec, directory_));
      } catch (Exception const& error) {
        fail(where + ": " + error.message());
      }
    });
    return settings;
  }

 private:
  std::string resolve(std::string const& value) const {
    if (value.rfind("./", 0) == 0 || value.rfind("../", 0) == 0) return (directory_ / value).lexically_normal().string();
    return value;
  }

  std::string path_;
  std::filesystem::path directory_;
};

}  // namespace

MenuJobSettings loadMenu(std::string const& path, JobConfig& config) { return MenuReader(path).read(config); }

}  // namespace lanes::cli
