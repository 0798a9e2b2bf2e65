#pragma once
// The `dummy` output: writes nothing, only counts, so that a job measures
// everything but the cost of writing.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::mimicry {

// Thread-safe: write() and productReady() run concurrently from every lane
// and only bump atomic counters, one pair per lane (on its own cache line) so
// that lanes do not contend; beginJob() sizes them and must not overlap.
class DummyOutput : public global::Output {
 public:
  // Options: ready=true|false (default false) asks for productReady() calls;
  // keep=PATTERN (repeatable glob over product labels; none: every product).
  DummyOutput(std::string label, Options const& options);

  void beginJob(JobContext const& context) override;
  void write(Event const& event) const override;
  bool wantsProductReady() const override { return wantsReady_; }
  void productReady(Event const& event, ProductIndex product) const override;

  std::uint64_t eventsWritten() const;
  std::uint64_t productsReady() const;

 private:
  struct alignas(128) LaneCounts {  // a line pair: a CPU may prefetch the line next to one it loads
    std::atomic<std::uint64_t> written{0};
    std::atomic<std::uint64_t> ready{0};
  };
  DummyOutput(std::string label, PluginOptions const& options);
  LaneCounts& countsOf(Event const& event) const { return counts_[event.lane() % lanes_]; }

  bool wantsReady_;
  unsigned lanes_ = 1;
  std::unique_ptr<LaneCounts[]> counts_ = std::make_unique<LaneCounts[]>(1);
};

}  // namespace lanes::mimicry
