#include "lanes/monitor/LogHistogram.h"

#include <algorithm>
#include <cmath>

#include "lanes/core/Exception.h"

namespace lanes {

namespace {

// Durations below a nanosecond (a clock's zero) share the lowest bucket.
constexpr double kShortest = 1e-9;

int bucketOf(double seconds) {
  return static_cast<int>(std::floor(std::log2(std::max(seconds, kShortest)) * LogHistogram::kBucketsPerOctave));
}

double middleOf(int bucket) { return std::exp2((bucket + 0.5) / LogHistogram::kBucketsPerOctave); }

}  // namespace

void LogHistogram::add(double seconds, std::uint64_t count) {
  if (count == 0) return;
  counts_[bucketOf(seconds)] += count;
  count_ += count;
}

void LogHistogram::merge(LogHistogram const& other) {
  for (auto const& [bucket, count] : other.counts_) counts_[bucket] += count;
  count_ += other.count_;
}

double LogHistogram::percentile(double fraction) const {
  if (count_ == 0) return 0.0;
  auto const nearest = static_cast<std::uint64_t>(std::ceil(fraction * static_cast<double>(count_)));
  auto const rank = std::clamp<std::uint64_t>(nearest, 1, count_);
  std::uint64_t seen = 0;
  for (auto const& [bucket, count] : counts_) {
    seen += count;
    if (seen >= rank) return middleOf(bucket);
  }
  return middleOf(counts_.rbegin()->first);
}

nlohmann::json LogHistogram::toJson() const {
  auto counts = nlohmann::json::array();
  for (auto const& [bucket, count] : counts_) counts.push_back({bucket, count});
  return {{"buckets_per_octave", kBucketsPerOctave}, {"counts", counts}};
}

LogHistogram LogHistogram::fromJson(nlohmann::json const& json) {
  auto const bad = [] {
    return Exception("not a lanes histogram: expected {buckets_per_octave: 64, counts: [[bucket, count], ...]}");
  };
  if (!json.is_object() || json.value("buckets_per_octave", 0) != kBucketsPerOctave || !json.contains("counts") ||
      !json["counts"].is_array()) {
    throw bad();
  }
  LogHistogram histogram;
  for (auto const& pair : json["counts"]) {
    bool const valid = pair.is_array() && pair.size() == 2 && pair[0].is_number_integer() && pair[1].is_number_unsigned();
    if (!valid) throw bad();
    auto const count = pair[1].get<std::uint64_t>();
    histogram.counts_[pair[0].get<int>()] += count;
    histogram.count_ += count;
  }
  return histogram;
}

}  // namespace lanes
