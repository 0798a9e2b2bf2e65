#include "lanes/monitor/ProgressTicker.h"

namespace lanes {

ProgressTicker::ProgressTicker(std::ostream& out, ProgressStyle style, std::chrono::milliseconds period, std::string part)
    : line_(out, style, period, part), wholeJob_(part.empty()) {}

ProgressTicker::~ProgressTicker() { stop(); }

void ProgressTicker::jobStarted(JobInfo const& info) {
  stop();
  events_ = 0;
  line_.start(wholeJob_ ? info.expectedEvents : 0);
  if (line_.style() == ProgressStyle::Off) return;
  stopping_ = false;
  thread_ = std::thread([this] { tick(); });
}

void ProgressTicker::eventFinished(unsigned, EventId const&, EventStatus status, Clock::time_point) {
  if (status == EventStatus::Done) events_.fetch_add(1, std::memory_order_relaxed);
}

void ProgressTicker::jobFinished() {
  if (!thread_.joinable()) return;
  stop();
  line_.draw(events_.load(std::memory_order_relaxed), true);
}

void ProgressTicker::tick() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_until(lock, line_.nextDue(), [this] { return stopping_; })) {
    lock.unlock();
    line_.drawIfDue(events_.load(std::memory_order_relaxed));
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
