#pragma once
// The generic `filter`: consumes products, costs time, and accepts a
// reproducible fraction of the events.

#include <cstdint>
#include <utility>

#include "mimicry/MimicModule.h"
#include "mimicry/WorkMode.h"

namespace lanes::mimicry {

// True for about `fraction` of all event numbers, always the same ones: a
// multiplicative (Fibonacci) hash of the number mapped to [0, 1).
inline bool acceptsEvent(std::uint64_t eventNumber, double fraction) {
  std::uint64_t const hash = eventNumber * 0x9E3779B97F4A7C15ull;
  return static_cast<double>(hash >> 11) * 0x1p-53 < fraction;
}

// Immutable after construction; called as Base's concurrency class says.
template <typename Base>
class MimicFilter final : public MimicModule<Base> {
 public:
  // Options: those of MimicModule, accept=FRACTION (default 1), work=busy|sleep (default busy).
  template <typename... BaseArgs>
  explicit MimicFilter(PluginOptions const& options, BaseArgs&&... baseArgs)
      : MimicModule<Base>(options, std::forward<BaseArgs>(baseArgs)...),
        accept_(options.fraction("accept", 1.0)),
        work_(readWorkMode(options, "work")) {}

  // Exactly one of the two overrides Base::filter: the const one for the
  // shared classes (global, limited), the other for stream and one.
  bool filter(Event& event) const { return run(event); }
  bool filter(Event& event) { return run(event); }
  std::string details() const override { return workDetails(work_); }

 private:
  bool run(Event const& event) const {
    spend(work_, this->cost(event));
    return acceptsEvent(event.id().event, accept_);
  }

  double accept_;
  WorkMode work_;
};

}  // namespace lanes::mimicry
