#include "lanes/core/StartupMarks.h"

#include <algorithm>

namespace lanes {

StartupMarks& StartupMarks::instance() {
  static StartupMarks marks;
  return marks;
}

void StartupMarks::beginMain() {
  std::lock_guard const lock(mutex_);
  main_ = Clock::now();
}

void StartupMarks::mark(std::string const& phase) {
  std::lock_guard const lock(mutex_);
  auto const seen = [&](auto const& mark) { return mark.first == phase; };
  if (done_ || std::any_of(marks_.begin(), marks_.end(), seen)) return;
  marks_.emplace_back(phase, Clock::now());  // under the lock: the marks' times follow their order
  done_ = phase == kFirstEvent;
}

StartupMarks::Clock::time_point StartupMarks::mainBegan() const {
  std::lock_guard const lock(mutex_);
  return main_;
}

std::vector<std::pair<std::string, StartupMarks::Clock::time_point>> StartupMarks::marks() const {
  std::lock_guard const lock(mutex_);
  return marks_;
}

}  // namespace lanes
