#include "lanes/monitor/Watchdog.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "lanes/core/Exception.h"

namespace lanes {

namespace {
std::string eventText(EventId const& id) {
  return std::to_string(id.run) + ":" + std::to_string(id.luminosityBlock) + ":" + std::to_string(id.event);
}
}  // namespace

WatchdogAction parseWatchdogAction(std::string const& name) {
  if (name == "warn") return WatchdogAction::Warn;
  if (name == "stop") return WatchdogAction::Stop;
  if (name == "abort") return WatchdogAction::Abort;
  throw Exception("--watchdog-action must be 'warn', 'stop' or 'abort', not '" + name + "'");
}

char const* toString(WatchdogAction action) {
  switch (action) {
    case WatchdogAction::Warn: return "warn";
    case WatchdogAction::Stop: return "stop";
    case WatchdogAction::Abort: return "abort";
  }
  return "?";
}

std::string describeActivity(LaneActivity const& activity, JobInfo const& info) {
  std::string const where = "lane " + std::to_string(activity.lane) + ", event " + eventText(activity.event) +
                            ", pid " + std::to_string(::getpid());
  if (!activity.module || *activity.module >= info.modules.size()) return where + ", between module calls";
  auto const& module = info.modules[*activity.module];
  return "module '" + module.label + "' (" + module.plugin + ") on " + where;
}

Watchdog::Watchdog(EventProcessor& processor, double seconds, WatchdogAction action, std::function<void()> abort)
    : processor_(processor), limit_(seconds), action_(action), abort_(std::move(abort)) {
  processor_.watchLanes();
  thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

// A hang is seen within a quarter of the limit (and a second at most).
void Watchdog::watch() {
  auto const period = std::min<std::chrono::duration<double>>(limit_ / 4, std::chrono::seconds(1));
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, period, [this] { return closing_; })) check();
}

void Watchdog::check() {
  auto const now = std::chrono::steady_clock::now();
  for (auto const& activity : processor_.laneActivity()) {
    if (!activity.busy || now - activity.since < limit_) continue;
    std::pair const key{activity.lane, activity.since};
    if (std::find(named_.begin(), named_.end(), key) != named_.end()) continue;
    named_.push_back(key);
    auto const seconds = std::chrono::duration<double>(now - activity.since).count();
    auto const what = describeActivity(activity, processor_.info());
    std::fprintf(stderr, "lanes: watchdog: %s has made no progress for %.1f s\n", what.c_str(), seconds);
    hangs_.push_back({{"lane", activity.lane}, {"event", eventText(activity.event)}, {"pid", ::getpid()},
                      {"module", activity.module ? processor_.info().modules.at(*activity.module).label : ""},
                      {"seconds", seconds}});
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g s", limit_.count());
    if (firstHang_.empty()) firstHang_ = what + " made no progress for " + limit;
    if (action_ == WatchdogAction::Abort) abort_();
    if (action_ == WatchdogAction::Stop) processor_.requestStop();
  }
}

std::string Watchdog::firstHang() const {
  std::lock_guard lock(mutex_);
  return firstHang_;
}

nlohmann::json Watchdog::toJson() const {
  std::lock_guard lock(mutex_);
  return {{"seconds", limit_.count()}, {"action", toString(action_)}, {"hangs", hangs_}};
}

}  // namespace lanes
