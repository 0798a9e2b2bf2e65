#include "WorkerWatchdog.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace lanes::node {

namespace {

// The process's state from /proc/PID/stat, in words ("stopped" for a
// SIGSTOP), or "" if it cannot be read.
std::string processState(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  auto const end = line.rfind(") ");
  if (end == std::string::npos || end + 2 >= line.size()) return "";
  switch (line[end + 2]) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "waiting for I/O";
    case 'T': return "stopped";
    case 't': return "stopped by a tracer";
    default: return std::string(1, line[end + 2]);
  }
}

}  // namespace

std::chrono::milliseconds heartbeatPeriod(double seconds) {
  if (seconds <= 0) return std::chrono::milliseconds(1000);  // no watchdog listens
  auto const quarter = std::chrono::duration<double, std::milli>(seconds * 1000 / 4);
  return std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(quarter), std::chrono::milliseconds(10),
                    std::chrono::milliseconds(1000));
}

WorkerWatchdog::WorkerWatchdog(WorkerBoard const& board, double seconds, WatchdogAction action)
    : board_(board), limit_(seconds), action_(action), period_(heartbeatPeriod(seconds)),
      next_(MonotonicClock::now() + period_) {}

bool WorkerWatchdog::check(std::vector<Running> const& running) {
  auto const now = MonotonicClock::now();
  next_ = now + period_;
  bool end = false;
  for (auto const& worker : running) {
    auto& heard = heard_[worker.index];
    auto const beat = board_.lastBeat(worker.seat);
    if (beat != heard.beat) {
      heard = {beat, now, false};
      continue;
    }
    if (beat == 0 || heard.named || now - heard.since < limit_) continue;
    heard.named = true;
    auto const seconds = std::chrono::duration<double>(now - heard.since).count();
    auto const state = processState(worker.pid);
    auto const events = board_.events(worker.seat);
    auto const who = worker.name + " (pid " + std::to_string(worker.pid) + ", part " + worker.part + ")";
    auto const silent = who + (state.empty() ? "" : ", " + state + ",");
    std::fprintf(stderr, "lanes: watchdog: %s has made no progress for %.1f s (its heartbeat stopped), after %llu events\n",
                 silent.c_str(), seconds, static_cast<unsigned long long>(events));
    hangs_.push_back({{"worker", worker.name}, {"part", worker.part}, {"pid", worker.pid}, {"state", state},
                      {"events", events}, {"seconds", seconds}});
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g s", limit_.count());
    if (firstHang_.empty()) firstHang_ = silent + " made no progress for " + limit;
    end = end || action_ != WatchdogAction::Warn;
  }
  return end;
}

nlohmann::json WorkerWatchdog::toJson() const {
  return {{"seconds", limit_.count()}, {"action", toString(action_)}, {"hangs", hangs_}};
}

}  // namespace lanes::node
