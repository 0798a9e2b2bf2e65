#pragma once
// What the monitor's own timing cost a job, estimated: the records it timed
// times the cost of one, measured on this machine as the report is built
// (the best of a few short rounds, so what a quiet core pays; the hooks'
// dispatch through the lanes is not in it). A call record costs two clock
// reads and its sums; a wait record, or an event's end, one read and its sums.
// A job whose timing is sampled times few calls; counting the others (a
// record without a clock read) is not in the estimate.

#include <cstdint>

#include <nlohmann/json.hpp>

namespace lanes {

// Immutable value type.
struct MonitorCost {
  std::uint64_t calls = 0;   // call records timed
  std::uint64_t waits = 0;   // wait records timed
  std::uint64_t events = 0;  // events whose end was timed
  double nsPerCall = 0;
  double nsPerWait = 0;  // a wait's or an event end's
  double seconds = 0;    // the estimate: calls x nsPerCall + (waits + events) x nsPerWait
  unsigned timingSample = 1;  // JobInfo::timingSample: above 1, the report's times are estimates

  // Measures the per-record costs now (about a millisecond) and estimates.
  static MonitorCost estimate(std::uint64_t calls, std::uint64_t waits, std::uint64_t events);

  // {timed_calls, timed_waits, timed_events, ns_per_call, ns_per_wait, estimated_s, thread_time_share,
  // timing_sample}
  nlohmann::json toJson(double threadSeconds) const;
};

}  // namespace lanes
