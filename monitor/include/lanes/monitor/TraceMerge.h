#pragma once
// Merges the traces of a multi-process or MPI job's parts (TraceRecorder
// files, one per process) into one Chrome trace: a process track per part,
// named with process_name metadata, its threads beneath; every timestamp
// moved onto the parent's timeline (each part's clock_origin_ns is on the
// monotonic clock, which every process of the machine shares; a part from
// another host comes with its clock's offset); and the parent's own work
// (merging, the shared writer's batches) as slices on a track of its own.

#include <cstdint>
#include <string>
#include <vector>

namespace lanes {

struct TracePart {
  std::string path;  // the part's trace; a part whose file is missing gets a note on its track instead
  int pid = 0;       // its process
  std::string name;  // its track's name, e.g. "worker-1"
  std::int64_t clockOffsetNs = 0;  // added to its clock to give the parent's (0 on the parent's host)
};

// A piece of the parent's work, on the monotonic clock (std::chrono::steady_clock), in nanoseconds.
struct TraceSlice {
  std::string name;
  std::int64_t beginNs = 0;
  std::int64_t endNs = 0;
};

struct TraceMergeInput {
  std::int64_t originNs = 0;  // the merged trace's time zero (the parent's start)
  int parentPid = 0;
  std::vector<TracePart> parts;
  std::vector<TraceSlice> parentWork;
  std::string parentName = "lanes parent";  // the parent's track (a part of the parent's pid shares it)
};

// Writes the merged trace to `path` (through a temporary name). Throws
// lanes::Exception naming the file if a part cannot be read or parsed, or
// the trace cannot be written; no file is left then.
void mergeTraces(std::string const& path, TraceMergeInput const& input);

}  // namespace lanes
