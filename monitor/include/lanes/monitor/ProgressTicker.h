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
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "lanes/core/ProcessingObserver.h"
#include "lanes/monitor/ProgressLine.h"

namespace lanes {

// Thread-safe: eventFinished() may be called concurrently for different lanes
// (for one lane, in turn: ProcessingObserver's ordering); jobStarted() and
// jobFinished() are called by the thread that runs the job. Each lane counts
// on a cache line of its own, which the drawing thread sums: a count shared by
// every event would bounce between the threads' caches at top speed.
// Off: listens to nothing.
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

  unsigned hooks() const override { return line_.style() == ProgressStyle::Off ? 0u : unsigned{kEvents}; }
  void jobStarted(JobInfo const& info) override;
  void eventFinished(unsigned lane, EventId const& id, EventStatus status, Clock::time_point when) override;
  void jobFinished() override;

 private:
  void tick();
  void stop();
  std::uint64_t events() const;

  struct alignas(128) LaneCount {
    std::atomic<std::uint64_t> done{0};  // written by its lane alone
  };

  ProgressLine line_;  // drawn by the thread, then (once it is joined) by jobFinished()
  bool const wholeJob_;
  std::unique_ptr<LaneCount[]> lanes_;
  unsigned laneCount_ = 0;
  std::mutex mutex_;  // guards stopping_
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace lanes
