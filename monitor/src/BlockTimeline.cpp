#include "lanes/monitor/BlockTimeline.h"

namespace lanes {

void BlockTimeline::jobStarted(JobInfo const&) {
  std::lock_guard const hold(lock_);
  start_ = Clock::now();
  lumis_.clear();
  leftOut_ = 0;
}

void BlockTimeline::blockFinished(BlockRecord const& record) {
  if (record.level != Level::Lumi || record.ended == kUntimed) return;
  std::lock_guard const hold(lock_);
  if (lumis_.size() < most_) {
    lumis_.push_back(record);
  } else {
    ++leftOut_;
  }
}

nlohmann::json BlockTimeline::toJson() const {
  std::lock_guard const hold(lock_);
  if (lumis_.empty()) return nullptr;
  auto const seconds = [&](Clock::time_point when) { return std::chrono::duration<double>(when - start_).count(); };
  auto lumis = nlohmann::json::array();
  for (auto const& lumi : lumis_) {
    lumis.push_back({seconds(lumi.opened), seconds(lumi.begun), seconds(lumi.ended), lumi.id.run,
                     lumi.id.luminosityBlock, lumi.events});
  }
  return {{"lumis", lumis}, {"lumis_left_out", leftOut_}};
}

}  // namespace lanes
