#pragma once
// A live progress line for people watching a terminal:
//   "\r  <events> events  <rate> ev/s  <elapsed>s"
// redrawn about twice a second by a thread of its own between jobStarted()
// and jobFinished(), which draws it a last time and ends the line. When the
// output is not a terminal the ticker stays silent and starts no thread.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <thread>

#include "lanes/core/ProcessingObserver.h"

namespace lanes {

// Thread-safe: eventFinished() may be called concurrently from any thread;
// jobStarted() and jobFinished() are called by the thread that runs the job.
class ProgressTicker : public ProcessingObserver {
 public:
  // Draws on stderr, if stderr is a terminal.
  ProgressTicker();
  // Draws on `out` if `enabled`; `out` must outlive the ticker.
  ProgressTicker(std::ostream& out, bool enabled, std::chrono::milliseconds period = std::chrono::milliseconds(500));
  ~ProgressTicker() override;
  ProgressTicker(ProgressTicker const&) = delete;
  ProgressTicker& operator=(ProgressTicker const&) = delete;

  void jobStarted(JobInfo const& info) override;
  void eventFinished(unsigned lane, EventId const& id, EventStatus status) override;
  void jobFinished() override;

 private:
  void tick();
  void draw();
  void stop();

  std::ostream& out_;
  bool const enabled_;
  std::chrono::milliseconds const period_;
  Clock::time_point start_;
  std::atomic<std::uint64_t> events_{0};
  std::mutex mutex_;  // guards stopping_
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace lanes
