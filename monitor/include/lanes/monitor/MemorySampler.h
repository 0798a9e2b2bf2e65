#pragma once
// Memory over time: the process's resident set (RSS, from /proc/self/statm)
// sampled on a thread of its own while a job runs. Sampling starts every
// `interval` and halves its rate (dropping every other sample) whenever
// `maxSamples` are held, so a job of any length keeps between maxSamples/2
// and maxSamples samples spread over all of it.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace lanes {

// Thread-safe: the sampling thread starts in the constructor and is joined
// by stop() (or the destructor); toJson() may be called at any time.
class MemorySampler {
 public:
  explicit MemorySampler(std::chrono::milliseconds interval = std::chrono::milliseconds(20), std::size_t maxSamples = 512);
  ~MemorySampler();
  MemorySampler(MemorySampler const&) = delete;
  MemorySampler& operator=(MemorySampler const&) = delete;

  // Takes a last sample and joins the thread.
  void stop();

  // {interval_s, samples: [[seconds since the start, rss_bytes], ...]}
  nlohmann::json toJson() const;

 private:
  void run();
  void sample();  // under mutex_

  std::chrono::steady_clock::time_point const start_;
  std::chrono::steady_clock::duration interval_;
  std::size_t const maxSamples_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<std::pair<double, std::uint64_t>> samples_;
  std::thread thread_;
};

}  // namespace lanes
