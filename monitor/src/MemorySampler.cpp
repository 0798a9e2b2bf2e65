#include "lanes/monitor/MemorySampler.h"

#include <algorithm>
#include <fstream>

#include <sys/resource.h>
#include <unistd.h>

namespace lanes {

namespace {

// 0 if /proc cannot tell (the sample is then skipped).
std::uint64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

double cpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto const seconds = [](timeval const& time) { return static_cast<double>(time.tv_sec) + 1e-6 * static_cast<double>(time.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

MemorySampler::MemorySampler(std::chrono::milliseconds interval, std::size_t maxSamples,
                             std::function<unsigned()> eventsInFlight)
    : start_(std::chrono::steady_clock::now()),
      interval_(interval),
      maxSamples_(std::max<std::size_t>(maxSamples, 2)),
      eventsInFlight_(std::move(eventsInFlight)) {
  std::lock_guard lock(mutex_);
  sample();
  thread_ = std::thread([this] { run(); });
}

MemorySampler::~MemorySampler() { stop(); }

void MemorySampler::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    sample();
  }
  wake_.notify_all();
  thread_.join();
}

void MemorySampler::run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) sample();
}

void MemorySampler::sample() {
  auto const bytes = residentBytes();
  if (bytes == 0) return;
  samples_.push_back({std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(), bytes, cpuSeconds(),
                      eventsInFlight_ ? eventsInFlight_() : 0u});
  if (samples_.size() < maxSamples_) return;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < samples_.size(); i += 2) samples_[kept++] = samples_[i];
  samples_.resize(kept);
  interval_ *= 2;
}

nlohmann::json MemorySampler::toJson() const {
  std::lock_guard lock(mutex_);
  auto samples = nlohmann::json::array();
  for (auto const& sample : samples_) samples.push_back({sample.seconds, sample.rssBytes});
  return {{"interval_s", std::chrono::duration<double>(interval_).count()}, {"samples", samples}};
}

nlohmann::json MemorySampler::activityJson() const {
  std::lock_guard lock(mutex_);
  auto samples = nlohmann::json::array();
  for (std::size_t i = 1; i < samples_.size(); ++i) {
    auto const& sample = samples_[i];
    auto const& before = samples_[i - 1];
    auto const elapsed = sample.seconds - before.seconds;
    auto const busy = elapsed > 0 ? std::max(0.0, sample.cpuSeconds - before.cpuSeconds) / elapsed : 0.0;
    samples.push_back({sample.seconds, busy, sample.eventsInFlight});
  }
  return {{"interval_s", std::chrono::duration<double>(interval_).count()}, {"samples", samples}};
}

}  // namespace lanes
