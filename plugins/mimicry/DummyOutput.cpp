#include "mimicry/DummyOutput.h"

#include "lanes/core/PluginRegistry.h"

namespace lanes::mimicry {

DummyOutput::DummyOutput(std::string label, Options const& options)
    : DummyOutput(std::move(label), PluginOptions(options, "dummy")) {}

DummyOutput::DummyOutput(std::string label, PluginOptions const& options)
    : Output(std::move(label)), wantsReady_(options.raw().getBool("ready", false)) {
  keep(options.raw().getAll("keep"));
}

void DummyOutput::write(Event const&) const { written_.fetch_add(1, std::memory_order_relaxed); }

void DummyOutput::productReady(Event const&, ProductIndex) const { ready_.fetch_add(1, std::memory_order_relaxed); }

namespace {
RegisterOutput<DummyOutput> const registration(
    "dummy", "writes nothing, counts events: ready=true asks for per-product ready calls, keep=PATTERN (glob)");
}

}  // namespace lanes::mimicry
