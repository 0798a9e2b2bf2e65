#pragma once
// Progress for people watching a job: a ProgressLine drawn by a thread of its
// own between jobStarted() and jobFinished(), which draws it a last time
// (Live about twice a second; Heartbeat every `--progress` period). The
// percentage and ETA appear when the total is known (JobInfo::
// expectedEvents) and the ticker watches the whole job, not one process's
// part of it. Off: silent, no thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "lanes/core/ProcessingObserver.h"
#include "lanes/monitor/ProgressLine.h"

namespace lanes {

// Thread-safe: eventFinished() may be called concurrently from any thread;
// jobStarted() and jobFinished() are called by the thread that runs the job.
class ProgressTicker : public ProcessingObserver {
 public:
  // Draws on `out` (which must outlive the ticker) every `period`. `part`
  // names one process's part of a job spread over several (an MPI rank's:
  // its lines say so, and show no total: its share is not known in advance).
  ProgressTicker(std::ostream& out, ProgressStyle style,
                 std::chrono::milliseconds period = std::chrono::milliseconds(500), std::string part = {});
  ~ProgressTicker() override;
  ProgressTicker(ProgressTicker const&) = delete;
  ProgressTicker& operator=(ProgressTicker const&) = delete;

  unsigned hooks() const override { return kEvents; }
  void jobStarted(JobInfo const& info) override;
  void eventFinished(unsigned lane, EventId const& id, EventStatus status, Clock::time_point when) override;
  void jobFinished() override;

 private:
  void tick();
  void stop();

  ProgressLine line_;  // drawn by the thread, then (once it is joined) by jobFinished()
  bool const wholeJob_;
  std::atomic<std::uint64_t> events_{0};
  std::mutex mutex_;  // guards stopping_
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace lanes
