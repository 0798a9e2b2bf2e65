#include "lanes/monitor/ModuleStatistics.h"

#include <algorithm>
#include <atomic>
#include <cassert>

#include "lanes/core/ProductRegistry.h"

namespace lanes {

CallTotals& CallTotals::operator+=(CallTotals const& other) {
  calls += other.calls;
  time += other.time;
  events += other.events;
  timed += other.timed;
  return *this;
}

LogHistogram& CallTimes::operator[](Kind kind) {
  switch (kind) {
    case kEvent: return event;
    case kAcquire: return acquire;
    case kProductReady: return productReady;
    default: return external;
  }
}

CallTimes& CallTimes::operator+=(CallTimes const& other) {
  event.merge(other.event);
  acquire.merge(other.acquire);
  productReady.merge(other.productReady);
  external.merge(other.external);
  return *this;
}

double WaitTotals::externalSeconds() const {
  return std::max(0.0, std::chrono::duration<double>(external - acquire).count());
}

WaitTotals& WaitTotals::operator+=(WaitTotals const& other) {
  queue += other.queue;
  external += other.external;
  acquire += other.acquire;
  conditions += other.conditions;
  return *this;
}

namespace {

// Generations of every ModuleStatistics' jobs, so that a thread's cache never
// mistakes one for another (a statistics may be destroyed and another made at
// its address).
std::atomic<std::uint64_t> generations{0};

// The calling thread's accumulator of the statistics' job it used last.
struct LocalCache {
  std::uint64_t generation = 0;
  void* accumulator = nullptr;
};
thread_local LocalCache cache;

}  // namespace

ModuleStatistics::ModuleStatistics() : generation_(++generations) {}

void ModuleStatistics::jobStarted(JobInfo const& info) {
  isOutput_.clear();
  for (auto const& module : info.modules) isOutput_.push_back(module.kind == ModuleKind::Output);
  lanes_ = info.lanes;
  timingSample_ = info.timingSample;
  perThread_.clear();
  generation_ = ++generations;
}

ModuleStatistics::Accumulator& ModuleStatistics::local() {
  if (cache.generation == generation_) return *static_cast<Accumulator*>(cache.accumulator);
  return firstUse();
}

ModuleStatistics::Accumulator& ModuleStatistics::firstUse() {
  auto& accumulator = perThread_.local();
  // Sized for this job on first use (a job of no modules still has lanes).
  if (accumulator.modules.size() != isOutput_.size() || accumulator.laneIdle.size() != lanes_) {
    accumulator.modules.resize(isOutput_.size());
    accumulator.waits.resize(isOutput_.size());
    accumulator.laneIdle.resize(lanes_);
    accumulator.callTimes.resize(isOutput_.size());
    accumulator.laneBoundary.resize(lanes_);
  }
  cache = {generation_, &accumulator};
  return accumulator;
}

void ModuleStatistics::addPending(std::vector<PendingTime> const& pending, std::vector<CallTimes>& modules, CallTimes& source) {
  for (auto const& [slot, nanoseconds] : pending) histogramOf(slot, modules, source).add(nanoseconds * 1e-9);
}

LogHistogram& ModuleStatistics::histogramOf(std::uint32_t slot, std::vector<CallTimes>& modules, CallTimes& source) {
  auto const module = slot / CallTimes::kKinds;
  auto const kind = static_cast<CallTimes::Kind>(slot % CallTimes::kKinds);
  return module < modules.size() ? modules[module][kind] : source[kind];
}

// `module`: an index into JobInfo::modules, or isOutput_.size() for the source.
void ModuleStatistics::addTime(Accumulator& accumulator, std::size_t module, CallTimes::Kind kind,
                               Clock::duration time) const {
  auto& pending = accumulator.pendingTimes;
  if (pending.size() == kPendingTimes) {
    addPending(pending, accumulator.callTimes, accumulator.sourceTimes);
    pending.clear();
  }
  auto const slot = static_cast<std::uint32_t>(module * CallTimes::kKinds + kind);
  pending.push_back({slot, static_cast<float>(std::chrono::duration_cast<std::chrono::nanoseconds>(time).count())});
}

void ModuleStatistics::callFinished(CallRecord const& record) {
  bool const timed = record.timed;
  CallTotals const call{1, record.end - record.begin, 0, timed};
  auto& accumulator = local();
  accumulator.timedCalls += timed;
  if (record.module == kSourceProducer) {
    accumulator.source += call;
    if (timed) addTime(accumulator, isOutput_.size(), record.transition == Transition::SourceRead ? CallTimes::kAcquire : CallTimes::kEvent, call.time);
    return;
  }
  assert(record.module < isOutput_.size() && "CallRecord::module is not an index into JobInfo::modules");
  auto& module = accumulator.modules[record.module];
  switch (record.transition) {
    case Transition::Event: ++module.events; [[fallthrough]];
    case Transition::Acquire:
      module += call;
      if (record.transition == Transition::Acquire) accumulator.waits[record.module].acquire += call.time;
      if (timed) addTime(accumulator, record.module, record.transition == Transition::Acquire ? CallTimes::kAcquire : CallTimes::kEvent, call.time);
      break;
    case Transition::ProductReady:
      module.time += call.time;
      if (timed) addTime(accumulator, record.module, CallTimes::kProductReady, call.time);
      break;
    default: {
      auto const kind = std::find(std::begin(kBlockTransitions), std::end(kBlockTransitions), record.transition);
      if (kind == std::end(kBlockTransitions)) return;
      if (accumulator.transitions.empty()) accumulator.transitions.resize(isOutput_.size());
      accumulator.transitions[record.module][kind - std::begin(kBlockTransitions)] += call;
      return;
    }
  }
  if (isOutput_[record.module]) accumulator.outputs += call;
}

void ModuleStatistics::waitFinished(WaitRecord const& record) {
  auto& accumulator = local();
  ++accumulator.timedWaits;
  auto const duration = record.end - record.begin;
  switch (record.kind) {
    case WaitKind::Queue: accumulator.waits.at(record.module).queue += duration; break;
    case WaitKind::External:
      accumulator.waits.at(record.module).external += duration;
      addTime(accumulator, record.module, CallTimes::kExternal, duration);
      break;
    case WaitKind::Idle: accumulator.laneIdle.at(record.lane) += duration; break;
    case WaitKind::Boundary: accumulator.laneBoundary.at(record.lane) += duration; break;
    case WaitKind::Conditions: accumulator.waits.at(record.module).conditions += duration; break;
  }
}

namespace {

// `time`, summed over `totals.timed` calls, as an estimate for all of them.
Clock::duration scaledToAll(Clock::duration time, CallTotals const& totals) {
  if (totals.timed == 0 || totals.timed == totals.calls) return time;
  auto const all = static_cast<double>(time.count()) * static_cast<double>(totals.calls) / static_cast<double>(totals.timed);
  return Clock::duration(static_cast<Clock::rep>(all));
}

void scaleToAll(CallTotals& totals) {
  totals.time = scaledToAll(totals.time, totals);
}

void scaleToAll(ModuleStatistics::Totals& total) {
  for (std::size_t i = 0; i < total.modules.size(); ++i) {
    auto const& calls = total.modules[i];
    auto& waits = total.waits[i];
    waits.queue = scaledToAll(waits.queue, calls);
    waits.external = scaledToAll(waits.external, calls);
    waits.acquire = scaledToAll(waits.acquire, calls);
    waits.conditions = scaledToAll(waits.conditions, calls);
    scaleToAll(total.modules[i]);
  }
  for (auto& idle : total.laneIdle) idle = scaledToAll(idle, total.source);
  scaleToAll(total.source);
  scaleToAll(total.outputs);
}

}  // namespace

ModuleStatistics::Totals ModuleStatistics::totals() const {
  Totals total;
  total.timingSample = timingSample_;
  total.modules.resize(isOutput_.size());
  total.waits.resize(isOutput_.size());
  total.laneIdle.resize(lanes_);
  total.laneBoundary.resize(lanes_);
  total.transitions.resize(isOutput_.size());
  for (auto const& part : perThread_) {
    for (std::size_t i = 0; i < part.laneBoundary.size(); ++i) total.laneBoundary[i] += part.laneBoundary[i];
    for (std::size_t i = 0; i < part.transitions.size(); ++i) {
      for (std::size_t k = 0; k < kBlockTransitionCount; ++k) total.transitions[i][k] += part.transitions[i][k];
    }
    for (std::size_t i = 0; i < part.modules.size(); ++i) total.modules[i] += part.modules[i];
    for (std::size_t i = 0; i < part.waits.size(); ++i) total.waits[i] += part.waits[i];
    for (std::size_t i = 0; i < part.laneIdle.size(); ++i) total.laneIdle[i] += part.laneIdle[i];
    total.source += part.source;
    total.outputs += part.outputs;
    total.timedCalls += part.timedCalls;
    total.timedWaits += part.timedWaits;
  }
  if (timingSample_ > 1) scaleToAll(total);
  return total;
}

namespace {

// Each histogram of `times` that holds any calls, under its name.
nlohmann::json histogramsJson(CallTimes const& times, char const* event, char const* acquire) {
  auto json = nlohmann::json::object();
  auto const add = [&](char const* key, LogHistogram const& histogram) {
    if (histogram.count() > 0) json[key] = histogram.toCompactJson(ModuleStatistics::kCallTimeBucketsPerOctave);
  };
  add(event, times.event);
  add(acquire, times.acquire);
  add("product_ready", times.productReady);
  add("external", times.external);
  return json;
}

}  // namespace

nlohmann::json ModuleStatistics::callTimesJson() const {
  std::vector<CallTimes> modules(isOutput_.size());
  CallTimes source;
  for (auto const& part : perThread_) {
    for (std::size_t i = 0; i < part.callTimes.size(); ++i) modules[i] += part.callTimes[i];
    source += part.sourceTimes;
    addPending(part.pendingTimes, modules, source);
  }
  auto json = nlohmann::json::object({{"buckets_per_octave", kCallTimeBucketsPerOctave}, {"modules", nlohmann::json::array()}});
  for (auto const& times : modules) json["modules"].push_back(histogramsJson(times, "event", "acquire"));
  json["source"] = histogramsJson(source, "next", "read");
  return json;
}

}  // namespace lanes
