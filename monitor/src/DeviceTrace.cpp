#include "lanes/monitor/DeviceTrace.h"

#include <atomic>

#include "lanes/monitor/TraceRecorder.h"

namespace lanes {

namespace detail {
std::atomic<TraceRecorder*> deviceTraceSink{nullptr};  // set by the recording TraceRecorder
}  // namespace detail

namespace deviceTrace {

namespace {
std::atomic<std::uint64_t> flows{0};
}

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

}  // namespace deviceTrace
}  // namespace lanes
