#pragma once
// What the supervisor measures and does to a job's processes: their tree
// and CPU time from /proc, over-use detection, confinement of every thread.

#include <sys/types.h>

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "lanes/node/PinningStrategy.h"

namespace lanes::node {

// Immutable after construction: a snapshot of /proc, every process's parent
// and CPU time.
class ProcessTable {
 public:
  static ProcessTable scan();

  // `root` and every process descended from it, alive (or unreaped) now;
  // empty when `root` is not in the table. A process that re-parents itself
  // away (a daemon's double fork) is no longer found.
  std::vector<pid_t> treeOf(pid_t root) const;

  // User + system time of `processes`, each with its reaped children's.
  double cpuSeconds(std::vector<pid_t> const& processes) const;

 private:
  struct Entry {
    pid_t parent = 0;
    unsigned long long ticks = 0;  // utime + stime + cutime + cstime
  };
  std::map<pid_t, Entry> entries_;
};

// Binds every thread of every process in `processes` to `pus` (again: a
// thread may have widened its own affinity) and adds it to `bound`; returns
// how many were not in `bound` before. Threads that end meanwhile are
// skipped; other failures throw lanes::Exception.
std::size_t confineThreads(std::vector<pid_t> const& processes, CpuSet const& pus, std::set<pid_t>& bound);

// Externally synchronised: fed by one thread. Decides from successive
// samples of a job's CPU time when it has used more than `cores` by more
// than `tolerance` (0.2: 20%) for longer than `graceSeconds`.
class OveruseDetector {
 public:
  OveruseDetector(unsigned cores, double tolerance, double graceSeconds);

  // A sample: seconds since the job started, CPU seconds it has used so far.
  // True when every sample for longer than the grace period was over.
  bool overdue(double wallSeconds, double cpuSeconds);

  double lastUsage() const { return lastUsage_; }  // in cores, over the last interval
  double peakUsage() const { return peakUsage_; }
  bool over() const { return overSince_.has_value(); }

 private:
  double limit_;
  double grace_;
  double lastWall_ = 0;
  double lastCpu_ = 0;
  double lastUsage_ = 0;
  double peakUsage_ = 0;
  std::optional<double> overSince_;
};

}  // namespace lanes::node
