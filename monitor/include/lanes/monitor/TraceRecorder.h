#pragma once
// Records every call the job makes, with the OS thread that made it, and
// writes them as a Chrome trace (the JSON that Perfetto and chrome://tracing
// open): one complete event ("ph": "X") per call, named after the module
// label (or "source"), with the transition as category and the lane and event
// id as arguments; timestamps in microseconds since jobStarted().
//
// Each calling thread appends to its own buffer, so recording costs a vector
// push_back and never contends. Memory grows with the number of calls.

#include <cstddef>
#include <string>
#include <vector>

#include <sys/types.h>
#include <tbb/enumerable_thread_specific.h>

#include "lanes/core/ProcessingObserver.h"

namespace lanes {

// Thread-safe: callFinished() may be called concurrently from any thread once
// jobStarted() has returned. size() and write() read every buffer and must not
// overlap with callFinished(): call them after jobFinished().
class TraceRecorder : public ProcessingObserver {
 public:
  void jobStarted(JobInfo const& info) override;
  void callFinished(CallRecord const& record) override;

  // The number of calls recorded.
  std::size_t size() const;

  // Writes the trace to `path` (through `path + ".tmp"`, renamed when
  // complete). Throws lanes::Exception naming the file if it cannot.
  void write(std::string const& path) const;

 private:
  struct Entry {
    CallRecord call;
    pid_t thread;  // OS thread id
  };

  std::vector<Entry> sortedEntries() const;

  Clock::time_point start_;
  std::vector<std::string> labels_;  // by module index
  tbb::enumerable_thread_specific<std::vector<Entry>> perThread_;
};

}  // namespace lanes
