#include "lanes/monitor/EventStatistics.h"

#include <algorithm>
#include <cmath>

#include "lanes/monitor/LogHistogram.h"

namespace lanes {

void EventStatistics::jobStarted(JobInfo const& info) { lanes_ = std::vector<LaneTimes>(info.lanes); }

void EventStatistics::eventStarted(unsigned lane, EventId const&) { lanes_.at(lane).started = Clock::now(); }

void EventStatistics::eventFinished(unsigned lane, EventId const& id, EventStatus) {
  auto& times = lanes_.at(lane);
  auto const seconds = std::chrono::duration<float>(Clock::now() - times.started).count();
  times.seconds.push_back(seconds);
  auto const fastest = [](Timed const& a, Timed const& b) { return a.seconds < b.seconds; };
  if (times.slowest.size() < slowest_) {
    times.slowest.push_back({seconds, id});
  } else if (auto it = std::min_element(times.slowest.begin(), times.slowest.end(), fastest);
             it != times.slowest.end() && it->seconds < seconds) {
    *it = {seconds, id};
  }
}

namespace {

// The nearest-rank percentile of sorted values.
double percentile(std::vector<float> const& sorted, double fraction) {
  auto const rank = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
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
  std::sort(all.begin(), all.end());
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
          {"max_s", any ? static_cast<double>(all.back()) : 0.0},
          {"slowest", named},
          {"histogram", histogram.toJson()}};
}

}  // namespace lanes
