#pragma once
// The parent's watchdog on its workers: names a running worker whose
// heartbeat (WorkerBoard) has not moved for `seconds`, on stderr and in the
// report's `watchdog` section (its part, pid, state, events), once per
// silence. A silent worker is a process stopped by a signal or wedged as a
// whole: its own watchdog, a thread of that process, cannot name it.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "MonotonicClock.h"
#include "lanes/monitor/Watchdog.h"
#include "lanes/node/WorkerBoard.h"

namespace lanes::node {

// Confined to the parent's thread.
class WorkerWatchdog {
 public:
  WorkerWatchdog(WorkerBoard const& board, double seconds, WatchdogAction action);

  // A worker that runs its part: neither done nor exited.
  struct Running {
    unsigned index;
    unsigned seat;
    int pid;
    std::string name;  // "worker-1"
    std::string part;  // its part's name
  };
  // Names the running workers that fell silent since the last check; true
  // when one did and the action is stop or abort: the job must end.
  bool check(std::vector<Running> const& running);
  // When the next check is due.
  MonotonicClock::time_point nextDue() const { return next_; }
  WatchdogAction action() const { return action_; }
  // What fell silent first, for the job's error; empty if nothing did.
  std::string const& firstHang() const { return firstHang_; }
  // {seconds, action, hangs: [{worker, part, pid, state, events, seconds}]}.
  nlohmann::json toJson() const;

 private:
  struct Heard {
    std::int64_t beat = 0;                // the last beat seen (0: none yet; it is watched from its first)
    MonotonicClock::time_point since;     // when it was first seen
    bool named = false;                   // this silence was named
  };

  WorkerBoard const& board_;
  std::chrono::duration<double> const limit_;
  WatchdogAction const action_;
  MonotonicClock::duration const period_;
  MonotonicClock::time_point next_;
  std::map<unsigned, Heard> heard_;  // by worker index
  nlohmann::json hangs_ = nlohmann::json::array();
  std::string firstHang_;
};

// How often a worker beats, and the watchdog checks, when it waits `seconds`
// (0: no watchdog): often enough that a check sees a beat well within the limit.
std::chrono::milliseconds heartbeatPeriod(double seconds);

}  // namespace lanes::node
