#include "lanes/monitor/ProgressTicker.h"

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <unistd.h>

namespace lanes {

ProgressTicker::ProgressTicker() : ProgressTicker(std::cerr, ::isatty(::fileno(stderr)) == 1) {}

ProgressTicker::ProgressTicker(std::ostream& out, bool enabled, std::chrono::milliseconds period)
    : out_(out), enabled_(enabled), period_(period) {}

ProgressTicker::~ProgressTicker() { stop(); }

void ProgressTicker::jobStarted(JobInfo const&) {
  stop();
  events_ = 0;
  start_ = Clock::now();
  if (!enabled_) return;
  stopping_ = false;
  thread_ = std::thread([this] { tick(); });
}

void ProgressTicker::eventFinished(unsigned, EventId const&, EventStatus status) {
  if (status == EventStatus::Done) events_.fetch_add(1, std::memory_order_relaxed);
}

void ProgressTicker::jobFinished() {
  if (!thread_.joinable()) return;
  stop();
  draw();
  out_ << std::endl;
}

void ProgressTicker::tick() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) {
    lock.unlock();
    draw();
    lock.lock();
  }
}

// "\033[K" clears what a longer previous line left behind.
void ProgressTicker::draw() {
  auto const events = events_.load(std::memory_order_relaxed);
  auto const elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  auto const rate = elapsed > 0 ? static_cast<double>(events) / elapsed : 0.0;
  std::ostringstream line;
  line << std::fixed << std::setprecision(1) << "\r  " << events << " events  " << rate << " ev/s  " << elapsed
       << "s\033[K";
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
