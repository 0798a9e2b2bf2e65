#pragma once
// The `event-time` waiter: one instance for the whole event, costing a
// measured time per event read from a file.

#include <string>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "mimicry/EventTimes.h"
#include "lanes/core/PluginOptions.h"
#include "mimicry/WorkMode.h"

namespace lanes::mimicry {

// Immutable after construction; analyze() runs concurrently for all lanes.
class EventTimeWaiter : public global::Analyzer {
 public:
  // Options: file=PATH (required), scale=FACTOR (default 1), mode=busy|sleep (default busy).
  EventTimeWaiter(std::string label, Options const& options);

  // Event number n costs times[(n - 1) % size] x scale.
  void analyze(Event const& event) const override;
  std::string details() const override { return workDetails(mode_); }

 private:
  EventTimeWaiter(std::string label, PluginOptions const& options);

  EventTimes times_;
  double scale_;
  WorkMode mode_;
};

}  // namespace lanes::mimicry
