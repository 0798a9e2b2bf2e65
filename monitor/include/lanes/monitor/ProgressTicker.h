#pragma once
// Progress for people watching a job, drawn by a thread of its own between
// jobStarted() and jobFinished(), which draws it a last time:
// - Live (a terminal): one line redrawn in place about twice a second,
//     "\r  <events> events  <rate> ev/s  <elapsed>s[  <percent>%  ETA <s>s]"
// - Heartbeat (a log, `--progress SECONDS`): a line every period,
//     "lanes: progress[ <part>]: <events> events, <rate> ev/s, <elapsed> s[, <percent>% of <total>, ETA <s> s]"
//   the last one ending ", finished".
// The percentage and ETA appear when the total is known (JobInfo::
// expectedEvents) and the ticker watches the whole job, not one worker's
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

namespace lanes {

enum class ProgressStyle { Off, Live, Heartbeat };

// Thread-safe: eventFinished() may be called concurrently from any thread;
// jobStarted() and jobFinished() are called by the thread that runs the job.
class ProgressTicker : public ProcessingObserver {
 public:
  // Draws on `out` (which must outlive the ticker) every `period`. `part`
  // names a worker's part of a multi-process job (its lines say so, and show
  // no total: the worker's share is not known in advance).
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
  void draw(bool last);
  void stop();

  std::ostream& out_;
  ProgressStyle const style_;
  std::chrono::milliseconds const period_;
  std::string const part_;
  std::uint64_t total_ = 0;  // 0: unknown
  Clock::time_point start_;
  std::atomic<std::uint64_t> events_{0};
  std::mutex mutex_;  // guards stopping_
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace lanes
