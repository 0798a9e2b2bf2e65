#include "lanes/monitor/DeviceTrace.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <vector>

#include "lanes/monitor/TraceRecorder.h"

namespace lanes {

namespace {
std::atomic<std::uint64_t> flows{0};
std::mutex backlogsMutex;  // guards flushes; held through a flush, so that no Backlog goes during its own
std::vector<std::function<void()> const*> flushes;  // those of the Backlogs alive
}  // namespace

namespace detail {
std::atomic<TraceRecorder*> deviceTraceSink{nullptr};  // set by the recording TraceRecorder

// Called by the recording TraceRecorder as it closes, while it is still the sink.
void flushDeviceBacklogs() {
  std::lock_guard lock(backlogsMutex);
  for (auto const* flush : flushes) (*flush)();
}
}  // namespace detail

namespace deviceTrace {

bool recording() { return detail::deviceTraceSink.load(std::memory_order_acquire) != nullptr; }

std::uint64_t newFlow() {
  return detail::deviceTraceSink.load(std::memory_order_acquire) ? flows.fetch_add(1, std::memory_order_relaxed) + 1 : 0;
}

void flowFromHere(std::uint64_t flow) {
  auto* sink = detail::deviceTraceSink.load(std::memory_order_acquire);
  if (sink && flow) sink->hostFlow(true, flow);
}

void flowToHere(std::uint64_t flow) {
  auto* sink = detail::deviceTraceSink.load(std::memory_order_acquire);
  if (sink && flow) sink->hostFlow(false, flow);
}

void work(unsigned queue, std::string const& name, Clock::time_point begin, Clock::time_point end, std::uint64_t into,
          std::uint64_t out) {
  if (auto* sink = detail::deviceTraceSink.load(std::memory_order_acquire)) sink->deviceWork(queue, name, begin, end, into, out);
}

Interval onHostClock(Clock::time_point reference, double beginS, double endS, Clock::time_point enqueued,
                     Clock::time_point done) {
  auto const duration = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(0.0, endS - beginS)));
  auto begin = reference + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(beginS));
  begin = std::max(std::min(begin, done - duration), enqueued);  // ended by `done`, and began after `enqueued`
  return {begin, std::max(begin, std::min(begin + duration, done))};
}

Backlog::Backlog(std::function<void()> flush) : flush_(std::move(flush)) {
  std::lock_guard lock(backlogsMutex);
  flushes.push_back(&flush_);
}

Backlog::~Backlog() {
  std::lock_guard lock(backlogsMutex);
  flushes.erase(std::find(flushes.begin(), flushes.end(), &flush_));
}

}  // namespace deviceTrace
}  // namespace lanes
