#pragma once
// Shared by the benchmarks: run a job, time it, report figures as JSON.

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/EventProcessor.h"
#include "lanes/monitor/ProgressTicker.h"
#include "lanes/monitor/ResourceUsage.h"
#include "lanes/monitor/RunStatistics.h"

namespace lanes::bench {

struct Measurement {
  double wallSeconds = 0;
  double cpuSeconds = 0;
  std::uint64_t events = 0;
  unsigned threads = 0;
  unsigned lanes = 0;
  double eventsPerSecond() const { return events / wallSeconds; }
  // Thread-seconds per event: flat while adding threads scales perfectly.
  double nsPerEventPerThread() const { return wallSeconds * threads / events * 1e9; }
  double cpuEfficiency() const { return cpuSeconds / (threads * wallSeconds); }
};

// Runs `config` once; with `monitored`, the observers that `lanes run` always
// attaches (the run statistics and a progress ticker, here silent) are on.
inline Measurement measure(JobConfig config, bool monitored) {
  unsigned const threads = config.threads;
  unsigned const lanes = config.lanes == 0 ? threads : config.lanes;
  EventProcessor processor(std::move(config));
  RunStatistics statistics;
  ProgressTicker ticker(std::cerr, ProgressStyle::Off);
  if (monitored) {
    processor.addObserver(&statistics);
    processor.addObserver(&ticker);
  }
  auto const before = ResourceUsage::sample();
  auto const start = std::chrono::steady_clock::now();
  auto const summary = processor.run();
  auto const wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (summary.failed) throw std::runtime_error(summary.error);
  auto const used = ResourceUsage::sample().since(before);
  return {wall, used.cpuUserSeconds + used.cpuSystemSeconds, summary.eventsProcessed, threads, lanes};
}

// Best of `repeats` runs (the least disturbed by the rest of the machine).
inline Measurement best(JobConfig const& config, bool monitored, int repeats = 3) {
  Measurement result = measure(config, monitored);
  for (int i = 1; i < repeats; ++i) {
    auto m = measure(config, monitored);
    if (m.wallSeconds < result.wallSeconds) result = m;
  }
  return result;
}

// Where a job benchmark runs: 1 and 2 threads with a lane each, then the
// machine's thread count with 1x, 2x and 4x as many lanes as threads (events
// in flight beyond the threads show what the shared structures cost).
struct Point {
  unsigned threads;
  unsigned lanes;
};
inline std::vector<Point> scalingPoints() {
  unsigned const machine = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Point> points{{1, 1}, {2, 2}};
  if (machine > 2) points.push_back({machine, machine});
  for (unsigned factor : {2u, 4u}) points.push_back({machine, factor * machine});
  return points;
}

inline nlohmann::json toJson(Measurement const& m) {
  return {{"threads", m.threads},          {"lanes", m.lanes},
          {"events", m.events},            {"ns_per_event_per_thread", m.nsPerEventPerThread()},
          {"wall_s", m.wallSeconds},       {"cpu_s", m.cpuSeconds},
          {"events_per_s", m.eventsPerSecond()}, {"cpu_efficiency", m.cpuEfficiency()}};
}

}  // namespace lanes::bench
