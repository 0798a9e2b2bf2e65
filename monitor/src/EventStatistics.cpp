#include "lanes/monitor/EventStatistics.h"

#include <algorithm>
#include <cmath>

#include "lanes/core/StartupMarks.h"
#include "lanes/monitor/LogHistogram.h"

namespace lanes {

void EventStatistics::jobStarted(JobInfo const& info) {
  std::lock_guard lock(lanesMutex_);
  lanes_ = std::vector<LaneTimes>(info.lanes);
}

void EventStatistics::eventStarted(unsigned lane, EventId const&, Clock::time_point when) {
  auto& times = lanes_.at(lane);
  times.started = when;
  times.inFlight.store(true, std::memory_order_relaxed);
}

unsigned EventStatistics::eventsInFlight() const {
  std::lock_guard lock(lanesMutex_);
  unsigned count = 0;
  for (auto const& lane : lanes_) count += lane.inFlight.load(std::memory_order_relaxed) ? 1 : 0;
  return count;
}

// The two ends may have been read on two threads: a few nanoseconds negative is none.
void EventStatistics::eventFinished(unsigned lane, EventId const& id, EventStatus, Clock::time_point when) {
  auto& times = lanes_.at(lane);
  times.inFlight.store(false, std::memory_order_relaxed);
  if (when == kUntimed) return;  // a sampled job's untimed event
  auto const seconds = std::max(0.0f, std::chrono::duration<float>(when - times.started).count());
  if (times.seconds.empty()) markStartup(StartupMarks::kFirstEvent);  // once per lane: the first ends the start-up
  times.seconds.push_back(seconds);
  auto const fastest = [](Timed const& a, Timed const& b) { return a.seconds < b.seconds; };
  auto const floor = [&] { return std::min_element(times.slowest.begin(), times.slowest.end(), fastest)->seconds; };
  if (times.slowest.size() < slowest_) {
    times.slowest.push_back({seconds, id});
    if (times.slowest.size() == slowest_) times.floor = floor();
  } else if (!times.slowest.empty() && seconds > times.floor) {
    *std::min_element(times.slowest.begin(), times.slowest.end(), fastest) = {seconds, id};
    times.floor = floor();
  }
}

namespace {

// The nearest-rank percentile of the values, which it reorders in part: a
// selection, not a sort, since a job at top speed times millions of events.
double percentile(std::vector<float>& values, double fraction) {
  auto const rank = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(values.size())));
  auto const nth = values.begin() + static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, values.size()) - 1);
  std::nth_element(values.begin(), nth, values.end());
  return *nth;
}

std::string text(EventId const& id) {
  return std::to_string(id.run) + ":" + std::to_string(id.luminosityBlock) + ":" + std::to_string(id.event);
}

}  // namespace

nlohmann::json EventStatistics::toJson() const {
  std::vector<float> all;
  std::vector<Timed> slowest;
  for (auto const& lane : lanes_) {
    all.insert(all.end(), lane.seconds.begin(), lane.seconds.end());
    slowest.insert(slowest.end(), lane.slowest.begin(), lane.slowest.end());
  }
  std::sort(slowest.begin(), slowest.end(), [](Timed const& a, Timed const& b) { return a.seconds > b.seconds; });
  if (slowest.size() > slowest_) slowest.resize(slowest_);
  LogHistogram histogram;
  for (auto const seconds : all) histogram.add(seconds);
  auto named = nlohmann::json::array();
  for (auto const& event : slowest) named.push_back({{"event", text(event.id)}, {"s", event.seconds}});
  bool const any = !all.empty();
  return {{"events", all.size()},
          {"median_s", any ? percentile(all, 0.5) : 0.0},
          {"p90_s", any ? percentile(all, 0.9) : 0.0},
          {"p99_s", any ? percentile(all, 0.99) : 0.0},
          {"max_s", any ? static_cast<double>(*std::max_element(all.begin(), all.end())) : 0.0},
          {"slowest", named},
          {"histogram", histogram.toJson()}};
}

}  // namespace lanes
