#pragma once
// The accelerator backends' side of --trace: each piece of device work (a
// copy, a kernel) as a box on its queue's track, and flows (arrows) from the
// host call that enqueued it to the device and from the device back to the
// host call that takes the result. While a TraceRecorder records (from its
// jobStarted() to its close()) it receives them; otherwise every function
// here does nothing but an atomic load.
//
// Thread-safe: any thread may call any function at any time while the
// recorder is alive (device work ends before the events that wait for it,
// so before the recorder closes).

#include <cstdint>
#include <functional>
#include <string>

#include "lanes/core/ProcessingObserver.h"

namespace lanes::deviceTrace {

// Whether a trace is recorded now: a backend that times its work on the
// device (CUDA events) does so only then.
bool recording();

// A new flow's id; 0 when no trace is recorded (every function takes 0 as "none").
std::uint64_t newFlow();

// Begins `flow` on the calling host thread now (inside the call that enqueues the work).
void flowFromHere(std::uint64_t flow);

// Ends `flow` on the calling host thread now (inside the call that takes the result).
void flowToHere(std::uint64_t flow);

// Device work `name` on queue `queue` from `begin` to `end`: it ends flow
// `into` at its start and begins flow `out` at its end.
void work(unsigned queue, std::string const& name, Clock::time_point begin, Clock::time_point end, std::uint64_t into,
          std::uint64_t out);

// Device work timed on the device's own clock, placed on the host's: it
// began `beginS` and ended `endS` seconds after a reference point whose host
// time is `reference`. The host also knows for certain that the work began
// after `enqueued` and ended before `done` (when it saw the work finished),
// so the box is moved into that window, keeping its duration where it fits:
// an error in the reference never draws the work before the call that
// launched it or after the call that took its result, and flows keep their
// order.
struct Interval {
  Clock::time_point begin, end;
};
Interval onHostClock(Clock::time_point reference, double beginS, double endS, Clock::time_point enqueued,
                     Clock::time_point done);

// Device work that the host learns of only after it is done, and records
// later (CUDA events are read on host threads, never in a stream callback).
// While a Backlog lives, the recording TraceRecorder calls its `flush` when
// it closes, before it stops recording, on the closing thread, so that the
// work of the job's last events is in the trace; `flush` calls work() for
// what is still to be recorded.
//
// Thread-safe: made and destroyed on any thread (never inside a flush); the
// destructor waits for a flush in progress, so `flush` may use what the
// Backlog's owner holds.
class Backlog {
 public:
  explicit Backlog(std::function<void()> flush);
  ~Backlog();
  Backlog(Backlog const&) = delete;
  Backlog& operator=(Backlog const&) = delete;

 private:
  std::function<void()> flush_;
};

// Records a piece of device work from construction to destruction (also
// when it throws).
class Span {
 public:
  Span(unsigned queue, std::string name, std::uint64_t into = 0, std::uint64_t out = 0)
      : queue_(queue), name_(std::move(name)), into_(into), out_(out), begin_(Clock::now()) {}
  ~Span() { work(queue_, name_, begin_, Clock::now(), into_, out_); }
  Span(Span const&) = delete;
  Span& operator=(Span const&) = delete;

 private:
  unsigned queue_;
  std::string name_;
  std::uint64_t into_, out_;
  Clock::time_point begin_;
};

}  // namespace lanes::deviceTrace
