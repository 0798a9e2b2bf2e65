#include "mimicry/OffloadProducer.h"

#include <chrono>
#include <thread>

#include "lanes/core/PluginRegistry.h"

namespace lanes::mimicry {
namespace {

std::optional<std::uint64_t> readFailAt(PluginOptions const& options) {
  if (!options.raw().has("fail-at")) return std::nullopt;
  return options.positive("fail-at", 1);
}

}  // namespace

OffloadProducer::OffloadProducer(std::string label, Options const& options)
    : OffloadProducer(std::move(label), PluginOptions(options, "offload")) {}

OffloadProducer::OffloadProducer(std::string label, PluginOptions const& options)
    : MimicModule(options, std::move(label)),
      failAt_(readFailAt(options)),
      pool_(static_cast<unsigned>(options.positive("threads", 2, PluginOptions::kMaxConcurrency))) {
  declareProduced(options);
}

void OffloadProducer::acquire(Event const& event, Completion completion) const {
  bool const fails = failAt_ == event.id().event;
  pool_.submit([seconds = cost(event), fails, id = event.id(), completion = std::move(completion)] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    if (fails) {
      completion.fail(std::make_exception_ptr(Exception("offload failure injected at event " + id.str())));
    } else {
      completion.done();
    }
  });
}

namespace {
RegisterModule<OffloadProducer> const registration(
    "offload",
    "external work on a pool of plain threads: time=SECONDS + scale=SECONDS/BYTE (sleeps), produces.<label>=BYTES, "
    "consumes=LABEL, threads=2, fail-at=K");
}

}  // namespace lanes::mimicry
