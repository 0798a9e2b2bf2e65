#pragma once
// Memory and activity over time: the process's resident set (RSS, from
// /proc/self/statm), its CPU time and, when the job tells, its events in
// flight, sampled on a thread of its own while a job runs. Sampling starts
// every `interval` and halves its rate (dropping every other sample) whenever
// `maxSamples` are held, so a job of any length keeps between maxSamples/2
// and maxSamples samples spread over all of it.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace lanes {

// Thread-safe: the sampling thread starts in the constructor and is joined
// by stop() (or the destructor); toJson() and activityJson() may be called
// at any time. `eventsInFlight` is called on the sampling thread, while the
// job runs: it must be safe to call concurrently with the job (e.g.
// EventStatistics::eventsInFlight()).
class MemorySampler {
 public:
  explicit MemorySampler(std::chrono::milliseconds interval = std::chrono::milliseconds(20), std::size_t maxSamples = 512,
                         std::function<unsigned()> eventsInFlight = {});
  ~MemorySampler();
  MemorySampler(MemorySampler const&) = delete;
  MemorySampler& operator=(MemorySampler const&) = delete;

  // Takes a last sample and joins the thread.
  void stop();

  // {interval_s, samples: [[seconds since the start, rss_bytes], ...]}
  nlohmann::json toJson() const;
  // {interval_s, samples: [[seconds since the start, busy_threads,
  // events_in_flight], ...]}: busy_threads is the CPU time the process used
  // in the interval that ends at the sample, per second of it (the threads
  // busy on a CPU, on average: a thread that sleeps or waits is not);
  // events_in_flight is counted at the sample (0 without `eventsInFlight`).
  // A sample for each of toJson()'s but the first, which ends no interval.
  nlohmann::json activityJson() const;

 private:
  struct Sample {
    double seconds;
    std::uint64_t rssBytes;
    double cpuSeconds;  // the process's, since it started
    unsigned eventsInFlight;
  };
  void run();
  void sample();  // under mutex_

  std::chrono::steady_clock::time_point const start_;
  std::chrono::steady_clock::duration interval_;
  std::size_t const maxSamples_;
  std::function<unsigned()> const eventsInFlight_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<Sample> samples_;
  std::thread thread_;
};

}  // namespace lanes
