#include "lanes/monitor/MonitorCost.h"

#include <algorithm>
#include <limits>

#include "lanes/core/FastClock.h"
#include "lanes/monitor/ModuleStatistics.h"

namespace lanes {

namespace {

constexpr int kRounds = 5;
constexpr int kRecordsPerRound = 2000;

// The least nanoseconds per record over the rounds, `record(clock, statistics)` recording one.
template <class Record>
double nsPerRecord(FastClock const& clock, Record record) {
  ModuleStatistics statistics;
  JobInfo job{1, 1, {{"timed", "timed", ModuleKind::Producer, Concurrency::Global}}, "timed"};
  statistics.jobStarted(job);
  ProcessingObserver& observer = statistics;
  double best = std::numeric_limits<double>::max();
  for (int round = 0; round < kRounds; ++round) {
    auto const start = Clock::now();
    for (int i = 0; i < kRecordsPerRound; ++i) record(clock, observer);
    best = std::min(best, std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kRecordsPerRound);
  }
  return best;
}

}  // namespace

MonitorCost MonitorCost::estimate(std::uint64_t calls, std::uint64_t waits, std::uint64_t events) {
  auto const clock = FastClock::calibrated();
  MonitorCost cost{calls, waits, events};
  cost.nsPerCall = nsPerRecord(clock, [](FastClock const& clock, ProcessingObserver& observer) {
    auto const begin = clock.now();
    observer.callFinished({0, Transition::Event, 0, EventId{1, 1, 1}, begin, clock.now()});
  });
  cost.nsPerWait = nsPerRecord(clock, [](FastClock const& clock, ProcessingObserver& observer) {
    auto const end = clock.now();
    observer.waitFinished({0, WaitKind::Queue, 0, EventId{1, 1, 1}, end - std::chrono::nanoseconds(1), end});
  });
  cost.seconds = 1e-9 * (static_cast<double>(calls) * cost.nsPerCall + static_cast<double>(waits + events) * cost.nsPerWait);
  return cost;
}

nlohmann::json MonitorCost::toJson(double threadSeconds) const {
  return {{"timed_calls", calls},
          {"timed_waits", waits},
          {"timed_events", events},
          {"ns_per_call", nsPerCall},
          {"ns_per_wait", nsPerWait},
          {"estimated_s", seconds},
          {"thread_time_share", threadSeconds > 0 ? seconds / threadSeconds : 0.0},
          {"timing_sample", timingSample}};
}

}  // namespace lanes
