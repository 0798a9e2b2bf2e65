#pragma once
// Records every call the job makes, with the OS thread that made it, as a
// Chrome trace (the JSON that Perfetto and chrome://tracing open): one
// complete event ("ph": "X") per call, named after the module label (or
// "source"), with the transition as category and the lane and event id as
// arguments; timestamps in microseconds since jobStarted(), whose time on the
// monotonic clock is `otherData.clock_origin_ns` (see TraceMerge.h).
//
// Waits (waitFinished()) are slices too, on a track per lane (tid
// kWaitTrack + lane, named "lane N waits"), so that they never overlap a
// thread's calls: named after the module label (or "idle"), with category
// "wait:queue", "wait:external" or "wait:idle" and the same arguments.
//
// Each calling thread appends to its own buffer, so recording costs a vector
// push_back and never contends; a thread whose buffer is full formats it and
// appends it to the file (under a lock, once per `chunk` calls), so memory
// stays bounded however long the job runs. The file is written under
// `path.partial-PID` and renamed when complete (lanes::commitFile()).
//
// While it records, it is also the sink of lanes/monitor/DeviceTrace.h: each
// device queue becomes a track ("device queue N") of boxes, with flow events
// ("ph": "s"/"f", category "device") between the host calls and the device
// work; these are rare next to calls, kept under a lock and written out a
// MiB at a time. As it closes, it first has the backends record the device
// work they learn of late (deviceTrace::Backlog).

#include <atomic>
#include <cstdint>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <sys/types.h>
#include <tbb/enumerable_thread_specific.h>

#include "lanes/core/ProcessingObserver.h"

namespace lanes {

// Thread-safe: callFinished() may be called concurrently from any thread once
// jobStarted() has returned. size() and close() read every buffer and must not
// overlap with callFinished(): call them after jobFinished().
class TraceRecorder : public ProcessingObserver {
 public:
  // Writes to `path`; a thread writes its calls out every `chunk` calls.
  explicit TraceRecorder(std::string path, std::size_t chunk = 4096);
  ~TraceRecorder() override;
  TraceRecorder(TraceRecorder const&) = delete;
  TraceRecorder& operator=(TraceRecorder const&) = delete;

  unsigned hooks() const override { return kCalls | kWaits | kBlocks; }
  // Creates the temporary file (a failure is kept for close()).
  void jobStarted(JobInfo const& info) override;
  void callFinished(CallRecord const& record) override;
  void waitFinished(WaitRecord const& record) override;
  void blockFinished(BlockRecord const& record) override;

  // DeviceTrace.h's sink (thread-safe): a flow begun (or ended) on the calling thread now ...
  void hostFlow(bool begins, std::uint64_t flow);
  // ... and a box on a device queue's track.
  void deviceWork(unsigned queue, std::string const& name, Clock::time_point begin, Clock::time_point end,
                  std::uint64_t into, std::uint64_t out);

  static constexpr unsigned kWaitTrack = 1'000'000;
  // Lumi slot N's lumis are thread kLumiTrack + N ("lumi slot N"), one slice a lumi from its slot taken to its end,
  // with its begin transition's span inside; runs likewise on kRunTrack + N.
  static constexpr unsigned kLumiTrack = 2'000'000;
  static constexpr unsigned kRunTrack = 2'100'000;

  // The number of calls and waits recorded.
  std::size_t size() const;

  // Writes the calls still buffered and the thread names, and renames the
  // file to its path. Throws lanes::Exception "cannot write 'PATH': CAUSE"
  // if any write, the close or the rename failed; no file is left then.
  void close();

 private:
  struct Buffer {
    std::vector<CallRecord> calls;
    std::vector<WaitRecord> waits;
    std::size_t written = 0;  // calls already in the file
    pid_t thread = 0;         // OS thread id
    unsigned tid = 0;         // the trace's: 1, 2, ... in order of first call
  };

  Buffer& thisThread();
  void flush(Buffer& buffer);
  void appendDevice(std::string const& text);
  void append(std::string const& text);
  void discard();

  std::string const path_;
  std::string const temporary_;
  std::size_t const chunk_;
  Clock::time_point start_;
  FastClock clock_;  // the job's (JobInfo::clock)
  std::vector<std::string> names_;  // JSON strings by module index
  std::string source_;              // the source's, as a JSON string
  std::string idle_;                // an Idle wait's name, as a JSON string
  std::string boundary_;            // a Boundary wait's
  tbb::enumerable_thread_specific<Buffer> perThread_;
  std::atomic<unsigned> threads_{0};
  std::mutex deviceMutex_;           // guards device_ and queues_
  std::string device_;               // the device's events, formatted, not yet written
  std::vector<unsigned> queues_;     // the device queues seen
  std::mutex blockMutex_;            // guards blockTracks_
  std::set<unsigned> blockTracks_;   // the lumi and run slots' tracks seen
  unsigned lanes_ = 0;
  std::mutex fileMutex_;  // guards file_ and error_
  std::FILE* file_ = nullptr;
  int error_ = EBADF;  // the errno of the first failed write (no file before jobStarted())
};

}  // namespace lanes
