#include "mimicry/DummyOutput.h"

#include <algorithm>

#include "lanes/core/PluginRegistry.h"

namespace lanes::mimicry {

DummyOutput::DummyOutput(std::string label, Options const& options)
    : DummyOutput(std::move(label), PluginOptions(options, "dummy")) {}

DummyOutput::DummyOutput(std::string label, PluginOptions const& options)
    : Output(std::move(label)), wantsReady_(options.raw().getBool("ready", false)) {
  keep(options.raw().getAll("keep"));
}

void DummyOutput::beginJob(JobContext const& context) {
  lanes_ = std::max(1u, context.lanes);
  counts_ = std::make_unique<LaneCounts[]>(lanes_);
}

void DummyOutput::write(Event const& event) const { countsOf(event).written.fetch_add(1, std::memory_order_relaxed); }

void DummyOutput::productReady(Event const& event, ProductIndex) const {
  countsOf(event).ready.fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t DummyOutput::eventsWritten() const {
  std::uint64_t total = 0;
  for (unsigned lane = 0; lane < lanes_; ++lane) total += counts_[lane].written.load();
  return total;
}

std::uint64_t DummyOutput::productsReady() const {
  std::uint64_t total = 0;
  for (unsigned lane = 0; lane < lanes_; ++lane) total += counts_[lane].ready.load();
  return total;
}

namespace {
RegisterOutput<DummyOutput> const registration(
    "dummy", "writes nothing, counts events: ready=true asks for per-product ready calls, keep=PATTERN (glob)");
}

}  // namespace lanes::mimicry
