#pragma once
// A job's progress line, drawn when its period is due by whoever counts the
// events: a ProgressTicker's thread, or the loop of a multi-process parent
// (which sums its workers' counts and may start no thread of its own).
// - Live (a terminal): one line redrawn in place,
//     "\r  <events> events  <rate> ev/s  <elapsed>s[  <percent>%  ETA <s>s]"
// - Heartbeat (a log, `--progress SECONDS`): a line every period,
//     "lanes: progress[ <part>]: <events> events, <rate> ev/s, <elapsed> s[, <percent>% of <total>, ETA <s> s]"
//   the last one ending ", finished".
// - Json (for a program that draws its own bar: `--progress-json`): a line every period,
//     {"events": N, "total": T, "elapsed_s": S, "finished": false}
//   (total null when it is not known), the last one "finished": true.
// The percentage and ETA appear when the total is known. Off: draws nothing.

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include "lanes/core/ProcessingObserver.h"

namespace lanes {

enum class ProgressStyle { Off, Live, Heartbeat, Json };

// Externally synchronised by its one caller.
class ProgressLine {
 public:
  // Draws on `out` (which must outlive it). `part` names one process's part
  // of a job spread over several (an MPI rank's): its lines say so.
  ProgressLine(std::ostream& out, ProgressStyle style, std::chrono::milliseconds period, std::string part = {});

  ProgressStyle style() const { return style_; }
  std::chrono::milliseconds period() const { return period_; }

  // The job starts now; `total` events are expected (0: unknown).
  void start(std::uint64_t total);
  // When the next line is due (start() + a whole number of periods).
  Clock::time_point nextDue() const { return next_; }
  // Draws a line of `events` if one is due, and schedules the next.
  void drawIfDue(std::uint64_t events);
  // Draws a line of `events` now; the `last` one ends the job's lines.
  void draw(std::uint64_t events, bool last);

 private:
  std::ostream& out_;
  ProgressStyle const style_;
  std::chrono::milliseconds const period_;
  std::string const part_;
  std::uint64_t total_ = 0;
  Clock::time_point start_, next_;
};

}  // namespace lanes
