#pragma once
// Names what makes no progress: a lane whose module call, or whose event
// between calls, has not moved for `seconds`. One line on stderr per hang
// (module label, lane, event, pid), a `watchdog` section in the report, and,
// as asked, a graceful stop of the job or an abort.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/EventProcessor.h"

namespace lanes {

enum class WatchdogAction { Warn, Stop, Abort };
WatchdogAction parseWatchdogAction(std::string const& name);  // throws lanes::Exception
char const* toString(WatchdogAction action);

// "module 'label' (plugin) on lane 2, event 1:1:400, pid 1234" or "lane 2, event ..., between module calls, pid ...".
std::string describeActivity(LaneActivity const& activity, JobInfo const& info);

// Thread-safe: a thread of its own reads the processor's lanes (which it
// asks to be watched: construct it before the job runs) and is joined by
// the destructor. `abort` runs on that thread for WatchdogAction::Abort and
// must not return (it ends the process).
class Watchdog {
 public:
  Watchdog(EventProcessor& processor, double seconds, WatchdogAction action, std::function<void()> abort);
  ~Watchdog();
  Watchdog(Watchdog const&) = delete;
  Watchdog& operator=(Watchdog const&) = delete;

  // What hung, for the job's error; empty if nothing did.
  std::string firstHang() const;
  WatchdogAction action() const { return action_; }
  // The report section: {seconds, action, hangs: [{lane, event, module, pid, seconds}]}.
  nlohmann::json toJson() const;

 private:
  void watch();
  void check();

  EventProcessor& processor_;
  std::chrono::duration<double> const limit_;
  WatchdogAction const action_;
  std::function<void()> const abort_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool closing_ = false;
  std::vector<std::pair<unsigned, std::chrono::steady_clock::time_point>> named_;  // (lane, since) already named
  nlohmann::json hangs_ = nlohmann::json::array();
  std::string firstHang_;
  std::thread thread_;
};

}  // namespace lanes
