#pragma once
// SIGINT and SIGTERM stop a job gracefully: the first one asks the processor
// to stop (the events in flight finish, outputs close, the report is
// written); a second one ends the process at once.

#include <signal.h>

#include <atomic>
#include <thread>

#include "lanes/core/EventProcessor.h"

namespace lanes::cli {

// Construct it before any other thread starts: it blocks the signals in the
// calling thread, so that every thread created afterwards (oneTBB's workers
// included) inherits the mask, and a dedicated thread takes them with
// sigwait(). attach() and signalled() are thread-safe; construction and
// destruction happen on the thread that runs the job.
class SignalStop {
 public:
  SignalStop();
  ~SignalStop();
  SignalStop(SignalStop const&) = delete;
  SignalStop& operator=(SignalStop const&) = delete;

  // The processor to stop; a signal that came earlier stops it at once.
  void attach(EventProcessor& processor);
  // The signal that stopped the job, or 0.
  int signalled() const { return signal_.load(); }

 private:
  void waitForSignals();

  sigset_t signals_;
  sigset_t previousMask_;
  std::atomic<EventProcessor*> processor_{nullptr};
  std::atomic<int> signal_{0};
  std::atomic<bool> closing_{false};
  std::thread waiter_;
};

}  // namespace lanes::cli
