#pragma once
// Plugins register themselves by name; specs on the command line and in menu
// files select them by that name.
//
//   namespace {
//   lanes::RegisterModule<Busy> busy("busy", "burns CPU for scale x bytes of each product",
//                                   lanes::PluginRole::PerProductWaiter);
//   }

#include <functional>
#include <utility>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "lanes/core/Module.h"
#include "lanes/core/Options.h"
#include "lanes/core/OutputModule.h"
#include "lanes/core/Source.h"

namespace lanes {

enum class PluginRole {
  Module,            // --module, or a menu [[module]]
  PerProductWaiter,  // --waiter: one instance per source product, gets option product=LABEL
  Waiter,            // --waiter: one instance for the whole event
};

// What an output's factory may know of the job it is made for: a factory
// can choose the output's concurrency class, or pick between two designs
// of it, by the threads and lanes it will run with.
struct JobShape {
  unsigned threads = 1;
  unsigned lanes = 1;
};

using ModuleFactory = std::function<std::unique_ptr<Module>(std::string const& label, Options const& options)>;
using OutputFactory = std::function<std::unique_ptr<OutputModule>(std::string const& label, Options const& options)>;
using JobOutputFactory =
    std::function<std::unique_ptr<OutputModule>(std::string const& label, Options const& options, JobShape const& job)>;
using SourceFactory = std::function<std::unique_ptr<Source>(Options const& options)>;

// An option whose values name files: the job refuses, before anything runs,
// to write a file that it also reads or writes elsewhere (lanes/core/JobFiles.h).
enum class FileAccess {
  Read,      // file=PATH read by the plugin
  ReadList,  // files=LIST: a text file naming files to read (readFileList())
  Write,     // file=PATH written by the plugin
};

struct FileOption {
  std::string key;
  FileAccess access;
};

// Unless a plugin says otherwise: a source reads file= and files=, an output writes file=.
inline std::vector<FileOption> const kSourceFiles{{"file", FileAccess::Read}, {"files", FileAccess::ReadList}};
inline std::vector<FileOption> const kOutputFiles{{"file", FileAccess::Write}};

struct PluginInfo {
  std::string name;
  std::string help;
  PluginRole role = PluginRole::Module;
  std::vector<FileOption> files = {};
  std::string library = {};  // the plugin library that registered it; empty: built into lanes
};

// A plugin library registered a name that was taken already (by lanes or by
// another library): the first registration stays.
struct PluginConflict {
  std::string kind;  // "source", "module" or "output"
  std::string name;
  std::string firstLibrary;  // empty: built into lanes
};

// Externally synchronised by start-up: registration happens during static
// initialisation (single-threaded), and while the command loads plugin
// libraries, one at a time, before any job starts; after that the registry is
// only read, from one thread at start-up.
class PluginRegistry {
 public:
  static PluginRegistry& instance();

  void addSource(PluginInfo info, SourceFactory factory);
  void addModule(PluginInfo info, ModuleFactory factory);
  void addOutput(PluginInfo info, OutputFactory factory);
  // An output whose factory looks at the job's shape (makeOutput's `job`).
  void addOutputForJob(PluginInfo info, JobOutputFactory factory);

  // Between these two calls a plugin library loads (its static registrars
  // run): what it registers is marked as `library`'s, and a name registered
  // already is not replaced but returned by endLibrary() as a conflict (a
  // registrar must not throw: it runs inside the dynamic loader).
  void beginLibrary(std::string library);
  std::vector<PluginConflict> endLibrary();

  // Each throws lanes::Exception for an unknown name (listing the known ones)
  // or for options the plugin did not recognise.
  std::unique_ptr<Source> makeSource(std::string const& name, Options const& options) const;
  std::unique_ptr<Module> makeModule(std::string const& name, std::string const& label, Options const& options) const;
  std::unique_ptr<OutputModule> makeOutput(std::string const& name, std::string const& label, Options const& options,
                                           JobShape const& job = {}) const;

  PluginInfo const& moduleInfo(std::string const& name) const;
  // The plugin's information, or nullptr for an unknown name.
  PluginInfo const* findSource(std::string const& name) const;
  PluginInfo const* findModule(std::string const& name) const;
  PluginInfo const* findOutput(std::string const& name) const;

  std::vector<PluginInfo> sources() const;
  std::vector<PluginInfo> modules() const;
  std::vector<PluginInfo> outputs() const;

 private:
  template <typename Factory>
  struct Entry {
    PluginInfo info;
    Factory factory;
  };
  template <typename Factory>
  void add(std::map<std::string, Entry<Factory>>& map, char const* kind, PluginInfo info, Factory factory);

  std::map<std::string, Entry<SourceFactory>> sources_;
  std::map<std::string, Entry<ModuleFactory>> modules_;
  std::map<std::string, Entry<JobOutputFactory>> outputs_;
  std::string library_;  // the library loading now; empty: none
  std::vector<PluginConflict> conflicts_;
};

namespace detail {
// Tells `module` which run and lumi callbacks its type T overrides: T's
// member is then its own, not its lanes base's (T::TypedBase, ModuleTypes.h).
template <typename T>
void noteTransitions(Module& module) {
  using Base = typename T::TypedBase;
  unsigned bits = 0;
  if (!std::is_same_v<decltype(&T::beginRun), decltype(&Base::beginRun)>) bits |= kBeginRun;
  if (!std::is_same_v<decltype(&T::endRun), decltype(&Base::endRun)>) bits |= kEndRun;
  if (!std::is_same_v<decltype(&T::beginLumi), decltype(&Base::beginLumi)>) bits |= kBeginLumi;
  if (!std::is_same_v<decltype(&T::endLumi), decltype(&Base::endLumi)>) bits |= kEndLumi;
  if constexpr (std::is_base_of_v<OutputModule, T>) {
    if (!std::is_same_v<decltype(&T::writeRun), decltype(&Base::writeRun)>) bits |= kWriteRun;
    if (!std::is_same_v<decltype(&T::writeLumi), decltype(&Base::writeLumi)>) bits |= kWriteLumi;
  }
  setTransitions(module, bits);
}
}  // namespace detail

// Makes a module (or output) of type T, telling it which run and lumi
// callbacks T overrides: what a factory of one's own (PluginRegistry::
// addModule) uses, as the registrars below do. A module made otherwise gets
// every run and lumi transition, and a `one` module among them holds the job
// to one lumi and one run in flight.
template <typename T, typename... Arguments>
std::unique_ptr<T> constructModule(Arguments&&... arguments) {
  auto module = std::make_unique<T>(std::forward<Arguments>(arguments)...);
  detail::noteTransitions<T>(*module);
  return module;
}

// Static registrars. A module type registered this way must be constructible
// from (std::string label, Options const&).
template <typename T>
struct RegisterModule {
  RegisterModule(std::string name, std::string help, PluginRole role = PluginRole::Module,
                 std::vector<FileOption> files = {}) {
    PluginRegistry::instance().addModule({std::move(name), std::move(help), role, std::move(files)},
                                         [](std::string const& label, Options const& options) {
                                           return std::unique_ptr<Module>(constructModule<T>(label, options));
                                         });
  }
};

template <typename T>
struct RegisterOutput {
  RegisterOutput(std::string name, std::string help, std::vector<FileOption> files = kOutputFiles) {
    PluginRegistry::instance().addOutput({std::move(name), std::move(help), PluginRole::Module, std::move(files)},
                                         [](std::string const& label, Options const& options) {
                                           return std::unique_ptr<OutputModule>(constructModule<T>(label, options));
                                         });
  }
};

template <typename T>
struct RegisterSource {
  RegisterSource(std::string name, std::string help, std::vector<FileOption> files = kSourceFiles) {
    PluginRegistry::instance().addSource({std::move(name), std::move(help), PluginRole::Module, std::move(files)},
                                         [](Options const& options) {
      return std::unique_ptr<Source>(std::make_unique<T>(options));
    });
  }
};

}  // namespace lanes
