#pragma once
// An observer that keeps every record of a real job, and a job run under it
// and the run report's observers, for tests that check relations between
// them (StallAccountingTest, TimingSampleTest).

#include <map>
#include <mutex>
#include <vector>

#include <tbb/task_arena.h>

#include "lanes/core/EventProcessor.h"
#include "lanes/core/ProcessingObserver.h"
#include "lanes/monitor/EventStatistics.h"
#include "lanes/monitor/ModuleStatistics.h"
#include "lanes/monitor/PathStatistics.h"

namespace lanes::test {

// Thread-safe (a lock: a test's jobs are small).
class Recorder : public ProcessingObserver {
 public:
  struct End {
    unsigned lane;
    EventId id;
    Clock::time_point when;
  };

  void callFinished(CallRecord const& call) override {
    std::lock_guard lock(mutex_);
    calls.push_back(call);
    countForeign();
  }
  void waitFinished(WaitRecord const& wait) override {
    std::lock_guard lock(mutex_);
    waits.push_back(wait);
    countForeign();
  }
  void eventStarted(unsigned lane, EventId const&, Clock::time_point) override {
    std::lock_guard lock(mutex_);
    ++started[lane];
    countForeign();
  }
  void eventFinished(unsigned lane, EventId const& id, EventStatus, Clock::time_point when) override {
    std::lock_guard lock(mutex_);
    ends.push_back({lane, id, when});
    countForeign();
  }

  std::vector<CallRecord> calls;
  std::vector<WaitRecord> waits;
  std::map<unsigned, int> started;  // events begun, by lane
  std::vector<End> ends;
  int fromForeignThreads = 0;  // hooks called on a thread outside every task arena (the contract says none)

 private:
  void countForeign() { fromForeignThreads += tbb::this_task_arena::current_thread_index() == tbb::task_arena::not_initialized; }
  std::mutex mutex_;
};

// Externally synchronised (a test's fixture): runs one job with every observer.
struct ObservedJob {
  RunSummary run(JobConfig config, PluginRegistry const& registry) {
    EventProcessor processor(std::move(config), registry);
    for (ProcessingObserver* observer : std::initializer_list<ProcessingObserver*>{&statistics, &paths, &events, &recorder}) {
      processor.addObserver(observer);
    }
    auto summary = processor.run();
    info = processor.info();
    return summary;
  }

  ModuleStatistics statistics;
  PathStatistics paths;
  EventStatistics events;
  Recorder recorder;
  JobInfo info;
};

}  // namespace lanes::test
