#pragma once
// Where a process's start-up goes, phase by phase, up to its first event:
// each layer marks the end of a phase it knows (the command its parsing,
// the ROOT plugins ROOT's initialisation and the first file's opening, the
// command again the first event), and the run report lists the phases
// (`startup`, docs/reports.md). A phase is the time since the mark before
// it, the first since main() began (StartupMarks::beginMain()).
//
// Thread-safe: marks may come from any thread (the first event's, from a
// lane). Only the first mark of each phase counts, and none after the
// first event's: a later file opened by a lane is no part of the start-up.

#include <chrono>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace lanes {

class StartupMarks {
 public:
  using Clock = std::chrono::steady_clock;
  // The phase that ends the start-up.
  static constexpr char const* kFirstEvent = "first_event";

  static StartupMarks& instance();

  // Called first thing in main(): the phases are timed from here.
  void beginMain();
  // Ends `phase` now, unless it ended already or the first event is done.
  void mark(std::string const& phase);
  // main()'s start, and each phase with the steady_clock time it ended, in order.
  Clock::time_point mainBegan() const;
  std::vector<std::pair<std::string, Clock::time_point>> marks() const;

 private:
  mutable std::mutex mutex_;
  Clock::time_point main_{};
  std::vector<std::pair<std::string, Clock::time_point>> marks_;
  bool done_ = false;
};

// StartupMarks::instance().mark(phase).
inline void markStartup(std::string const& phase) { StartupMarks::instance().mark(phase); }

}  // namespace lanes
