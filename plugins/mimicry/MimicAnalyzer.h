#pragma once
// The generic `analyzer`: consumes products and costs time.

#include <utility>

#include "mimicry/MimicModule.h"
#include "mimicry/WorkMode.h"

namespace lanes::mimicry {

// Immutable after construction; called as Base's concurrency class says.
template <typename Base>
class MimicAnalyzer final : public MimicModule<Base> {
 public:
  // Options: those of MimicModule, work=busy|sleep (default busy).
  template <typename... BaseArgs>
  explicit MimicAnalyzer(PluginOptions const& options, BaseArgs&&... baseArgs)
      : MimicModule<Base>(options, std::forward<BaseArgs>(baseArgs)...), work_(readWorkMode(options, "work")) {}

  // Exactly one of the two overrides Base::analyze: the const one for the
  // shared classes (global, limited), the other for stream and one.
  void analyze(Event const& event) const { spend(work_, this->cost(event)); }
  void analyze(Event const& event) { spend(work_, this->cost(event)); }
  std::string details() const override { return workDetails(work_); }

 private:
  WorkMode work_;
};

}  // namespace lanes::mimicry
