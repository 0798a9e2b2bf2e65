#pragma once
// The `dummy` output: writes nothing, only counts, so that a job measures
// everything but the cost of writing.

#include <atomic>
#include <cstdint>
#include <string>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "mimicry/PluginOptions.h"

namespace lanes::mimicry {

// Thread-safe: write() and productReady() run concurrently from every lane
// and only bump atomic counters.
class DummyOutput : public global::Output {
 public:
  // Options: ready=true|false (default false) asks for productReady() calls;
  // keep=PATTERN (repeatable glob over product labels; none: every product).
  DummyOutput(std::string label, Options const& options);

  void write(Event const& event) const override;
  bool wantsProductReady() const override { return wantsReady_; }
  void productReady(Event const& event, ProductIndex product) const override;

  std::uint64_t eventsWritten() const { return written_.load(); }
  std::uint64_t productsReady() const { return ready_.load(); }

 private:
  DummyOutput(std::string label, PluginOptions const& options);

  bool wantsReady_;
  mutable std::atomic<std::uint64_t> written_{0};
  mutable std::atomic<std::uint64_t> ready_{0};
};

}  // namespace lanes::mimicry
