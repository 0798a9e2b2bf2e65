#pragma once
// A measured time per event, replayed by the `event-time` waiter.

#include <cstdint>
#include <string>
#include <vector>

namespace lanes::mimicry {

// Immutable after construction.
class EventTimes {
 public:
  // A text file with one time in seconds per line; blank lines and '#'
  // comments are ignored. Throws lanes::Exception naming the file (and the
  // line) if it is unreadable, holds something that is not a time >= 0, or
  // holds no time at all.
  static EventTimes load(std::string const& path);

  // The time of event ordinal k: times[k % n].
  double at(std::uint64_t ordinal) const { return seconds_[ordinal % seconds_.size()]; }
  std::size_t size() const { return seconds_.size(); }

 private:
  explicit EventTimes(std::vector<double> seconds) : seconds_(std::move(seconds)) {}

  std::vector<double> seconds_;
};

}  // namespace lanes::mimicry
