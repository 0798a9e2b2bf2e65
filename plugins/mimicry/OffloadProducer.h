#pragma once
// The `offload` producer: external work on a pool of plain threads, the way a
// module hands work to an accelerator. acquire() queues a job that costs
// time (a sleep: the device is busy, not this CPU) and then signals the
// completion from the pool's thread; produce() puts the products.

#include <cstdint>
#include <optional>
#include <string>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "mimicry/MimicModule.h"
#include "mimicry/WorkerPool.h"

namespace lanes::mimicry {

// Thread-safe: acquire() and produce() run concurrently for all lanes; the
// only mutable state is the pool, which is thread-safe itself. The pool's
// threads are joined when the module is destroyed.
class OffloadProducer : public MimicModule<global::ExternalProducer> {
 public:
  // Options: those of MimicModule (consumes, time, scale), produces.<label>=BYTES,
  // threads=N (default 2), fail-at=K (the job of event K fails instead).
  OffloadProducer(std::string label, Options const& options);

  void acquire(Event const& event, Completion completion) const override;
  void produce(Event& event) const override { putProduced(event); }

 private:
  OffloadProducer(std::string label, PluginOptions const& options);

  std::optional<std::uint64_t> failAt_;
  mutable WorkerPool pool_;  // last: destroyed (joined) first
};

}  // namespace lanes::mimicry
