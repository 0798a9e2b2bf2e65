// A plugin library that registers a module under a name lanes has (busy):
// lanes refuses it rather than let either one win.

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"

namespace {

class Idle : public lanes::global::Analyzer {
 public:
  Idle(std::string label, lanes::Options const&) : Analyzer(std::move(label)) {}
  void analyze(lanes::Event const&) const override {}
};

lanes::RegisterModule<Idle> const registration("busy", "test: takes a built-in module's name");

}  // namespace
