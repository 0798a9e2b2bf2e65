#include "lanes/monitor/ProgressTicker.h"

namespace lanes {

ProgressTicker::ProgressTicker(std::ostream& out, ProgressStyle style, std::chrono::milliseconds period, std::string part)
    : line_(out, style, period, part), wholeJob_(part.empty()) {}

ProgressTicker::~ProgressTicker() { stop(); }

void ProgressTicker::jobStarted(JobInfo const& info) {
  stop();
  laneCount_ = info.lanes;
  lanes_ = std::make_unique<LaneCount[]>(laneCount_);
  line_.start(wholeJob_ ? info.expectedEvents : 0);
  if (line_.style() == ProgressStyle::Off) return;
  stopping_ = false;
  thread_ = std::thread([this] { tick(); });
}

void ProgressTicker::eventFinished(unsigned lane, EventId const&, EventStatus status, Clock::time_point) {
  if (status != EventStatus::Done) return;
  auto& done = lanes_[lane].done;
  done.store(done.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

std::uint64_t ProgressTicker::events() const {
  std::uint64_t sum = 0;
  for (unsigned lane = 0; lane < laneCount_; ++lane) sum += lanes_[lane].done.load(std::memory_order_relaxed);
  return sum;
}

void ProgressTicker::jobFinished() {
  if (!thread_.joinable()) return;
  stop();
  line_.draw(events(), true);
}

void ProgressTicker::tick() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_until(lock, line_.nextDue(), [this] { return stopping_; })) {
    lock.unlock();
    line_.drawIfDue(events());
    lock.lock();
  }
}

void ProgressTicker::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

}  // namespace lanes
