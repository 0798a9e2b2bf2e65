#include "lanes/monitor/ModuleStatistics.h"

#include <cassert>

#include "lanes/core/ProductRegistry.h"

namespace lanes {

CallTotals& CallTotals::operator+=(CallTotals const& other) {
  calls += other.calls;
  time += other.time;
  return *this;
}

void ModuleStatistics::jobStarted(JobInfo const& info) {
  isOutput_.clear();
  for (auto const& module : info.modules) isOutput_.push_back(module.kind == ModuleKind::Output);
  perThread_.clear();
}

ModuleStatistics::Totals& ModuleStatistics::local() {
  auto& accumulator = perThread_.local();
  if (accumulator.modules.size() != isOutput_.size()) accumulator.modules.resize(isOutput_.size());
  return accumulator;
}

void ModuleStatistics::callFinished(CallRecord const& record) {
  CallTotals const call{1, record.end - record.begin};
  auto& accumulator = local();
  if (record.module == kSourceProducer) {
    accumulator.source += call;
    return;
  }
  assert(record.module < isOutput_.size() && "CallRecord::module is not an index into JobInfo::modules");
  bool const perEvent = record.transition == Transition::Acquire || record.transition == Transition::Event;
  if (perEvent) accumulator.modules[record.module] += call;
  if (isOutput_[record.module] && (perEvent || record.transition == Transition::ProductReady)) {
    accumulator.outputs += call;
  }
}

ModuleStatistics::Totals ModuleStatistics::totals() const {
  Totals total;
  total.modules.resize(isOutput_.size());
  for (auto const& part : perThread_) {
    for (std::size_t i = 0; i < part.modules.size(); ++i) total.modules[i] += part.modules[i];
    total.source += part.source;
    total.outputs += part.outputs;
  }
  return total;
}

}  // namespace lanes
