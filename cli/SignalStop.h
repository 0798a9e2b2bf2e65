#pragma once
// SIGINT, SIGTERM and SIGHUP stop a job gracefully: the first one asks the
// processor to stop (the events in flight finish, outputs close, the report
// is written); a second one ends the process at once. A worker of a
// multi-process job never aborts on its own: a Ctrl-C reaches it twice (from
// the terminal, to the whole process group, and forwarded by its parent),
// and only the parent decides that a second one means "abort".

#include <signal.h>

#include <atomic>
#include <functional>
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
  enum class Role { Job, Worker };
  explicit SignalStop(Role role = Role::Job);
  ~SignalStop();
  SignalStop(SignalStop const&) = delete;
  SignalStop& operator=(SignalStop const&) = delete;

  // The processor to stop; a signal that came earlier stops it at once.
  void attach(EventProcessor& processor);
  // Runs on the signal thread when a second signal aborts the job, right
  // before the process ends. Set it before attach().
  void onAbort(std::function<void()> cleanup) { cleanup_ = std::move(cleanup); }
  // Ends the process at once with `status`, after the onAbort() cleanup.
  [[noreturn]] void abort(int status);
  // The signal that stopped the job, or 0.
  int signalled() const { return signal_.load(); }

 private:
  void waitForSignals();

  Role const role_;
  sigset_t signals_;
  sigset_t previousMask_;
  std::function<void()> cleanup_;
  std::atomic<EventProcessor*> processor_{nullptr};  // published with cleanup_
  std::atomic<int> signal_{0};
  std::atomic<bool> closing_{false};
  std::thread waiter_;
};

}  // namespace lanes::cli
