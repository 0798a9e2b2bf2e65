#include "lanes/core/PluginRegistry.h"

#include <utility>

#include "lanes/core/Exception.h"

namespace lanes {

namespace {

template <typename Map>
auto const& lookup(Map const& map, std::string const& name, char const* what) {
  auto it = map.find(name);
  if (it == map.end()) {
    std::string known;
    for (auto const& [key, entry] : map) known += (known.empty() ? "" : ", ") + key;
    throw Exception(std::string("unknown ") + what + " '" + name + "' (known: " + known + ")");
  }
  return it->second;
}

template <typename Map>
std::vector<PluginInfo> infos(Map const& map) {
  std::vector<PluginInfo> result;
  for (auto const& [name, entry] : map) result.push_back(entry.info);
  return result;
}

// Constructs a plugin and rejects the options it did not read (a typo, or a
// wrong plugin); every error names who was being constructed.
template <typename Factory, typename... Args>
auto construct(Factory const& factory, std::string const& who, Options const& options, Args const&... args) {
  try {
    Options copy = options;
    auto plugin = factory(args..., copy);
    copy.requireAllUsed();
    return plugin;
  } catch (...) {
    std::rethrow_exception(withContext(std::current_exception(), {who, Transition::Construction, {}, {}, {}}));
  }
}

}  // namespace

PluginRegistry& PluginRegistry::instance() {
  static PluginRegistry registry;
  return registry;
}

template <typename Factory>
void PluginRegistry::add(std::map<std::string, Entry<Factory>>& map, char const* kind, PluginInfo info,
                         Factory factory) {
  info.library = library_;
  auto it = map.find(info.name);
  if (it != map.end() && !library_.empty()) {
    conflicts_.push_back({kind, info.name, it->second.info.library});
    return;
  }
  auto name = info.name;  // built in: the last registration wins
  map[std::move(name)] = {std::move(info), std::move(factory)};
}

void PluginRegistry::addSource(PluginInfo info, SourceFactory factory) {
  add(sources_, "source", std::move(info), std::move(factory));
}

void PluginRegistry::addModule(PluginInfo info, ModuleFactory factory) {
  add(modules_, "module", std::move(info), std::move(factory));
}

void PluginRegistry::addOutput(PluginInfo info, OutputFactory factory) {
  addOutputForJob(std::move(info), [factory = std::move(factory)](std::string const& label, Options const& options,
                                                                  JobShape const&) { return factory(label, options); });
}

void PluginRegistry::addOutputForJob(PluginInfo info, JobOutputFactory factory) {
  add(outputs_, "output", std::move(info), std::move(factory));
}

void PluginRegistry::beginLibrary(std::string library) {
  library_ = std::move(library);
  conflicts_.clear();
}

std::vector<PluginConflict> PluginRegistry::endLibrary() {
  library_.clear();
  return std::exchange(conflicts_, {});
}

std::unique_ptr<Source> PluginRegistry::makeSource(std::string const& name, Options const& options) const {
  auto const& entry = lookup(sources_, name, "source");
  return construct(entry.factory, "source", options);
}

std::unique_ptr<Module> PluginRegistry::makeModule(std::string const& name, std::string const& label,
                                                   Options const& options) const {
  auto const& entry = lookup(modules_, name, "module");
  return construct(entry.factory, label, options, label);
}

std::unique_ptr<OutputModule> PluginRegistry::makeOutput(std::string const& name, std::string const& label,
                                                         Options const& options, JobShape const& job) const {
  auto const& entry = lookup(outputs_, name, "output");
  auto const forJob = [&](std::string const& outputLabel, Options const& checked) {
    return entry.factory(outputLabel, checked, job);
  };
  return construct(forJob, label, options, label);
}

PluginInfo const& PluginRegistry::moduleInfo(std::string const& name) const {
  return lookup(modules_, name, "module").info;
}

namespace {
template <typename Map>
PluginInfo const* find(Map const& map, std::string const& name) {
  auto it = map.find(name);
  return it == map.end() ? nullptr : &it->second.info;
}
}  // namespace

PluginInfo const* PluginRegistry::findSource(std::string const& name) const { return find(sources_, name); }
PluginInfo const* PluginRegistry::findModule(std::string const& name) const { return find(modules_, name); }
PluginInfo const* PluginRegistry::findOutput(std::string const& name) const { return find(outputs_, name); }

std::vector<PluginInfo> PluginRegistry::sources() const { return infos(sources_); }
std::vector<PluginInfo> PluginRegistry::modules() const { return infos(modules_); }
std::vector<PluginInfo> PluginRegistry::outputs() const { return infos(outputs_); }

}  // namespace lanes
