#pragma once
// The hooks through which the monitor layer watches a job. The core calls
// them; it neither times nor aggregates anything itself beyond the two clock
// reads around each call that it hands over.

#include <chrono>
#include <string>
#include <vector>

#include "lanes/core/EventId.h"
#include "lanes/core/Exception.h"
#include "lanes/core/Module.h"

namespace lanes {

using Clock = std::chrono::steady_clock;

// One module call, source access or output call, as it happened.
struct CallRecord {
  unsigned module;  // index into JobInfo::modules, or kSourceProducer
  Transition transition;
  unsigned lane;
  EventId event;
  Clock::time_point begin;
  Clock::time_point end;
};

enum class EventStatus { Done, Failed };

struct ModuleInfo {
  std::string label;
  std::string plugin;
  ModuleKind kind;
  Concurrency concurrency;
};

struct JobInfo {
  unsigned threads;
  unsigned lanes;
  std::vector<ModuleInfo> modules;
  std::string source;
  std::uint64_t expectedEvents = 0;  // the events the job will process when known before it starts (0: unknown)
};

// Thread-safe: callFinished() and eventFinished() are called concurrently from
// every worker thread (and from foreign threads that complete external
// work); jobStarted() and jobFinished() from the thread that runs the job.
class ProcessingObserver {
 public:
  virtual ~ProcessingObserver() = default;
  virtual void jobStarted(JobInfo const&) {}
  virtual void callFinished(CallRecord const&) {}
  virtual void eventFinished(unsigned /*lane*/, EventId const&, EventStatus) {}
  virtual void jobFinished() {}
};

}  // namespace lanes
