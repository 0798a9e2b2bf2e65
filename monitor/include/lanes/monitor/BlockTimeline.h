#pragma once
// When each lumi of a job took its slot, began and ended: the run report's
// runs_and_lumis.timeline, from which the HTML page draws the lumis in flight
// beside the lanes busy across their boundaries.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/ProcessingObserver.h"

namespace lanes {

// Thread-safe: blockFinished() may be called from any thread (a lumi's end
// is rare next to its events: a lock does); toJson() after jobFinished().
class BlockTimeline : public ProcessingObserver {
 public:
  // Keeps the first `most` lumis; the report says how many more there were.
  explicit BlockTimeline(std::size_t most = 2000) : most_(most) {}
  unsigned hooks() const override { return kBlocks; }
  void jobStarted(JobInfo const& info) override;
  void blockFinished(BlockRecord const& record) override;

  // {"lumis": [[opened_s, begun_s, ended_s, run, lumi, events], ...] (seconds
  // since the job started, in the order they ended), "lumis_left_out": N};
  // null if no lumi was timed.
  nlohmann::json toJson() const;

 private:
  std::size_t const most_;
  mutable std::mutex lock_;
  Clock::time_point start_;
  std::vector<BlockRecord> lumis_;
  std::uint64_t leftOut_ = 0;
};

}  // namespace lanes
