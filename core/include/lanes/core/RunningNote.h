#pragma once
// What the calling thread runs now: the module (or the source), its
// transition, the lane and the event. The scheduler sets the note around
// each call it makes into a module or the source, so that a fatal signal
// raised inside one (a module that follows a null pointer, a failed assert,
// std::terminate) can be reported with what was running before the process
// dies. The note lives in the scope that sets it, on the calling thread's
// stack, and a thread-local pointer names the innermost: setting it costs a
// few stores (about 25 instructions a call), and a signal handler reads it
// without allocating or locking. The command's handler reads it
// (cli/FatalSignals.h); core only keeps it.

#include <cstddef>

#include "lanes/core/EventId.h"
#include "lanes/core/Exception.h"

namespace lanes {

// Immutable after construction: who a note names, kept by the scheduler for
// the whole job (one per module, one for the source); the names outlive it.
struct RunnerName {
  static constexpr int kSource = -1;
  char const* label;   // the module's label, or "source"
  char const* plugin;  // the plugin's name
  int module;          // index into JobInfo::modules, or kSource
};

struct RunningNote {
  RunnerName const* runner;
  Transition transition;
  int lane;                   // -1: no lane (a job's transition)
  EventId const* event;       // nullptr: no event (yet)
  RunningNote const* outer;   // the call this one runs inside (a task a thread took as it waited), or nullptr
};

namespace detail {
// Per thread, constant-initialised: a static TLS slot of the executable,
// which a signal handler may read.
inline thread_local RunningNote const* runningNow = nullptr;
}  // namespace detail

// The calling thread's innermost note; nullptr when it runs no call of a
// job. Async-signal-safe.
inline RunningNote const* runningNow() noexcept { return detail::runningNow; }

// Appends what fits of "module 'x' (plugin 'p', event, lane 0, event 1:1:5)"
// ("source (plugin 'root', source read, ...)") to the NUL-terminated text in
// `buffer`, of `size` bytes; nothing for nullptr. Async-signal-safe.
void appendRunning(RunningNote const* note, char* buffer, std::size_t size) noexcept;

// Lane-confined: notes a call as what the calling thread runs, until it is
// destroyed on the same thread, which makes the note it ran inside the
// innermost again (a call may run inside another: a task a thread takes
// while it waits).
class RunningScope {
 public:
  RunningScope(RunnerName const& runner, Transition transition, int lane = -1, EventId const* event = nullptr) noexcept
      : note_{&runner, transition, lane, event, detail::runningNow} {
    detail::runningNow = &note_;
  }
  ~RunningScope() { detail::runningNow = note_.outer; }
  RunningScope(RunningScope const&) = delete;
  RunningScope& operator=(RunningScope const&) = delete;

 private:
  RunningNote const note_;
};

}  // namespace lanes
