#include "mimicry/EventTimeWaiter.h"

#include "lanes/core/PluginRegistry.h"

namespace lanes::mimicry {

EventTimeWaiter::EventTimeWaiter(std::string label, Options const& options)
    : EventTimeWaiter(std::move(label), PluginOptions(options, "event-time")) {}

EventTimeWaiter::EventTimeWaiter(std::string label, PluginOptions const& options)
    : Analyzer(std::move(label)),
      times_(options.forOption("file", [path = options.required("file")] { return EventTimes::load(path); })),
      scale_(options.nonNegative("scale", 1.0)),
      mode_(readWorkMode(options, "mode")) {}

void EventTimeWaiter::analyze(Event const& event) const {
  spend(mode_, scale_ * times_.at(event.id().event - 1));
}

namespace {
RegisterModule<EventTimeWaiter> const registration(
    "event-time", "costs a measured time per event: file=PATH (seconds per line), scale=1, mode=busy|sleep",
    PluginRole::Waiter, {{"file", FileAccess::Read}});
}

}  // namespace lanes::mimicry
