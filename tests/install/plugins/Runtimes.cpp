// The `runtimes` module: which oneTBB and ROOT core libraries its process
// maps, in its details for the run report, so that a test sees that a plugin
// library brings no second copy of either.

#include <fstream>
#include <set>
#include <string>

#include <TROOT.h>
#include <oneapi/tbb/task_arena.h>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"

namespace {

// Immutable after beginJob(): analyze() does nothing.
class Runtimes : public lanes::global::Analyzer {
 public:
  Runtimes(std::string label, lanes::Options const&) : Analyzer(std::move(label)) {}

  void beginJob(lanes::JobContext const&) override {
    concurrency_ = tbb::this_task_arena::max_concurrency();  // this library's use of oneTBB
    rootVersion_ = gROOT->GetVersion();                      // and of ROOT
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
      auto const slash = line.find('/');
      if (slash == std::string::npos) continue;
      auto const path = line.substr(slash);
      auto const name = path.substr(path.rfind('/') + 1);
      if (name.rfind("libtbb.so", 0) == 0) tbb_.insert(path);
      if (name.rfind("libCore.so", 0) == 0) rootCore_.insert(path);
    }
  }

  void analyze(lanes::Event const&) const override {}

  // {"tbb": [paths], "root_core": [paths], "root_version", "tbb_concurrency"}
  std::string details() const override {
    return R"({"tbb": )" + list(tbb_) + R"(, "root_core": )" + list(rootCore_) + R"(, "root_version": ")" +
           rootVersion_ + R"(", "tbb_concurrency": )" + std::to_string(concurrency_) + "}";
  }

 private:
  static std::string list(std::set<std::string> const& paths) {
    std::string text = "[";
    for (auto const& path : paths) text += (text.size() > 1 ? ", \"" : "\"") + path + "\"";
    return text + "]";
  }

  std::set<std::string> tbb_, rootCore_;
  std::string rootVersion_;
  int concurrency_ = 0;
};

lanes::RegisterModule<Runtimes> const registration("runtimes", "test: the oneTBB and ROOT libraries mapped");

}  // namespace
