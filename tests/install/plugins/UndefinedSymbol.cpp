// A plugin library that calls a function no library defines: lanes refuses
// to load it, naming the function.

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"

void lanesTestDefinedNowhere();

namespace {

class CallsNowhere : public lanes::global::Analyzer {
 public:
  CallsNowhere(std::string label, lanes::Options const&) : Analyzer(std::move(label)) {}
  void analyze(lanes::Event const&) const override { lanesTestDefinedNowhere(); }
};

lanes::RegisterModule<CallsNowhere> const registration("calls-nowhere", "test: calls a function no library defines");

}  // namespace
