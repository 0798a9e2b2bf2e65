#pragma once
// `--trace` of an MPI job. Every rank records its part of the trace in its
// own node's temporary directory (mpiTraceRecording()) and, once its events
// are done, sends it to rank 0 by MPI a MiB at a time: no rank needs to see
// another's files, and no shared file system holds parts. Rank 0 keeps them
// in its temporary directory and merges them (lanes/monitor/TraceMerge.h)
// into the one trace asked for: a process track per rank, "rank N on HOST
// (pid P)", every rank's times moved onto rank 0's clock by the offset it
// measured at the start (MpiClock.h), and rank 0's own work (merging the
// outputs) on a thread of rank 0's track.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "MpiClock.h"
#include "lanes/monitor/TraceMerge.h"
#include "lanes/node/MpiJob.h"

namespace lanes::node {

// Externally synchronised: each rank's main thread; the constructor and
// collect() are collective.
class MpiTrace {
 public:
  // Measures this rank's clock against rank 0's. `path`: the trace to write.
  MpiTrace(MpiSession const& session, std::string path);
  // Removes the temporary parts this rank has (recorded, or received).
  ~MpiTrace();
  MpiTrace(MpiTrace const&) = delete;
  MpiTrace& operator=(MpiTrace const&) = delete;

  // Once this rank's part has ended: sends it to rank 0, which receives
  // every rank's. `startNs` is when the rank began, on its clock: the merged
  // trace starts at the earliest rank's.
  void collect(std::int64_t startNs);

  // Rank 0, after collect(): writes the trace; `workers` are the job report's
  // rows (rank, host, pid), `work` rank 0's own on its clock. Throws
  // lanes::Exception naming the file if a part could not be received or the
  // trace cannot be written; no trace is left then.
  void write(nlohmann::json const& workers, std::vector<TraceSlice> const& work) const;

 private:
  struct Part {
    std::string path;        // rank 0's copy
    bool present = false;    // the rank recorded it and it arrived whole
    std::int64_t startNs = 0;  // the rank's start, on rank 0's clock
    std::int64_t offsetNs = 0;
  };

  void send(std::int64_t startNs) const;
  Part receive(unsigned rank);

  MpiSession const& session_;
  std::string const path_;
  std::string const recorded_;  // this rank's part
  ClockOffset const clock_;
  std::vector<Part> parts_;     // rank 0's, by rank
  std::string error_;           // rank 0's first failure to keep a part
};

}  // namespace lanes::node
