#pragma once
// The path report, as CMSSW's trigger report gives it: per path, the events
// that visited it and how many it accepted, rejected or failed; per module on
// a path, the same. Gathered from pathFinished(): a path that stopped at step
// s passed its first s modules, and the module at s rejected or failed it.

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>
#include <tbb/enumerable_thread_specific.h>

#include "lanes/core/ProcessingObserver.h"

namespace lanes {

// Thread-safe: pathFinished() may be called concurrently from any thread once
// jobStarted() has returned; toJson() merges the per-thread counts and must
// not overlap with those calls: call it after jobFinished().
class PathStatistics : public ProcessingObserver {
 public:
  unsigned hooks() const override { return kEvents; }
  void jobStarted(JobInfo const& info) override;
  void pathFinished(unsigned lane, unsigned path, PathStatus status, unsigned step) override;

  // [{name, visited, accepted, rejected, failed, modules: [{label, visited,
  // accepted, rejected, failed}]}] in the job's path order.
  nlohmann::json toJson() const;

 private:
  // Per path: events accepted; per step, events rejected / failed there.
  struct Counts {
    std::uint64_t accepted = 0;
    std::vector<std::uint64_t> rejectedAt;
    std::vector<std::uint64_t> failedAt;
  };
  std::vector<Counts>& local();

  JobInfo info_;
  tbb::enumerable_thread_specific<std::vector<Counts>> perThread_;
};

}  // namespace lanes
