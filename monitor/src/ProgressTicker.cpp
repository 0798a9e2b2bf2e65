#include "lanes/monitor/ProgressTicker.h"

#include <iomanip>
#include <sstream>

namespace lanes {

ProgressTicker::ProgressTicker(std::ostream& out, ProgressStyle style, std::chrono::milliseconds period, std::string part)
    : out_(out), style_(style), period_(period), part_(std::move(part)) {}

ProgressTicker::~ProgressTicker() { stop(); }

void ProgressTicker::jobStarted(JobInfo const& info) {
  stop();
  events_ = 0;
  total_ = part_.empty() ? info.expectedEvents : 0;
  start_ = Clock::now();
  if (style_ == ProgressStyle::Off) return;
  stopping_ = false;
  thread_ = std::thread([this] { tick(); });
}

void ProgressTicker::eventFinished(unsigned, EventId const&, EventStatus status, Clock::time_point) {
  if (status == EventStatus::Done) events_.fetch_add(1, std::memory_order_relaxed);
}

void ProgressTicker::jobFinished() {
  if (!thread_.joinable()) return;
  stop();
  draw(true);
}

void ProgressTicker::tick() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) {
    lock.unlock();
    draw(false);
    lock.lock();
  }
}

// Live: "\033[K" clears what a longer previous line left behind.
void ProgressTicker::draw(bool last) {
  auto const events = events_.load(std::memory_order_relaxed);
  auto const elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  auto const rate = elapsed > 0 ? static_cast<double>(events) / elapsed : 0.0;
  bool const live = style_ == ProgressStyle::Live;
  char const* sep = live ? "  " : ", ";
  std::ostringstream line;
  line << std::fixed << std::setprecision(1);
  if (live) {
    line << "\r  ";
  } else {
    line << "lanes: progress" << (part_.empty() ? "" : " " + part_) << ": ";
  }
  line << events << " events" << sep << rate << " ev/s" << sep << elapsed << (live ? "s" : " s");
  if (total_ && events <= total_) {
    line << sep << 100.0 * static_cast<double>(events) / static_cast<double>(total_) << "%";
    if (!live) line << " of " << total_;
    if (!last && rate > 0) line << sep << "ETA " << static_cast<double>(total_ - events) / rate << (live ? "s" : " s");
  }
  if (live) line << "\033[K";
  if (last) line << (live ? "" : ", finished") << "\n";
  if (!live && !last) line << "\n";
  out_ << line.str() << std::flush;
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
