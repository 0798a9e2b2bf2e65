#include "lanes/monitor/EventStatistics.h"

#include <algorithm>

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
  auto const nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(when - times.started).count();
  auto const seconds = std::max(0.0f, static_cast<float>(nanoseconds) * 1e-9f);  // a product: a division is ~4x slower
  if (times.pending.empty() && times.seconds.count() == 0) markStartup(StartupMarks::kFirstEvent);  // once per lane: the first ends the start-up
  if (times.pending.size() == kBatch) {
    times.seconds.addEach(times.pending.data(), times.pending.size());
    times.pending.clear();
  }
  times.pending.push_back(seconds);
  times.longest = std::max(times.longest, seconds);
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

std::string text(EventId const& id) {
  return std::to_string(id.run) + ":" + std::to_string(id.luminosityBlock) + ":" + std::to_string(id.event);
}

}  // namespace

nlohmann::json EventStatistics::toJson() const {
  LogHistogram histogram;
  double longest = 0;
  std::vector<Timed> slowest;
  for (auto const& lane : lanes_) {
    histogram.merge(lane.seconds);
    histogram.addEach(lane.pending.data(), lane.pending.size());
    longest = std::max(longest, static_cast<double>(lane.longest));
    slowest.insert(slowest.end(), lane.slowest.begin(), lane.slowest.end());
  }
  std::sort(slowest.begin(), slowest.end(), [](Timed const& a, Timed const& b) { return a.seconds > b.seconds; });
  if (slowest.size() > slowest_) slowest.resize(slowest_);
  auto named = nlohmann::json::array();
  for (auto const& event : slowest) named.push_back({{"event", text(event.id)}, {"s", event.seconds}});
  auto const at = [&](double fraction) { return std::min(histogram.percentile(fraction), longest); };
  return {{"events", histogram.count()},
          {"median_s", at(0.5)},
          {"p90_s", at(0.9)},
          {"p99_s", at(0.99)},
          {"max_s", longest},
          {"slowest", named},
          {"histogram", histogram.toJson()}};
}

}  // namespace lanes
