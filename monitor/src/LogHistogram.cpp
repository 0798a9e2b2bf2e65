#include "lanes/monitor/LogHistogram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lanes/core/Exception.h"

namespace lanes {

namespace {

// Durations below a nanosecond (a clock's zero) share the lowest bucket.
constexpr double kShortest = 1e-9;

// The lower edges of an octave's buckets, 2^(k/64), and for each of 256
// equal slices of the octave's mantissas [1, 2) the bucket its start is in:
// a bucket is wider than a slice, so a mantissa is in that bucket or the next.
struct Edges {
  double lower[LogHistogram::kBucketsPerOctave + 1];
  std::uint8_t bucketAt[256];
  Edges() {
    for (int k = 0; k <= LogHistogram::kBucketsPerOctave; ++k) lower[k] = std::exp2(double(k) / LogHistogram::kBucketsPerOctave);
    for (int slice = 0; slice < 256; ++slice) {
      double const start = 1.0 + slice / 256.0;
      int k = 0;
      while (lower[k + 1] <= start) ++k;
      bucketAt[slice] = static_cast<std::uint8_t>(k);
    }
  }
};
Edges const edges;

// floor(64 log2(seconds)) without a logarithm: the monitor adds every timed
// call's time (ModuleStatistics), and log2 cost more than the rest of it.
int bucketOf(double seconds) {
  int exponent = 0;
  double const mantissa = 2 * std::frexp(std::max(seconds, kShortest), &exponent);  // in [1, 2)
  int bucket = edges.bucketAt[static_cast<int>((mantissa - 1) * 256)];
  if (mantissa >= edges.lower[bucket + 1]) ++bucket;
  return (exponent - 1) * LogHistogram::kBucketsPerOctave + bucket;
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

nlohmann::json LogHistogram::toCompactJson(int bucketsPerOctave) const {
  auto const factor = kBucketsPerOctave / bucketsPerOctave;
  auto const coarse = [factor](int bucket) { return bucket >= 0 ? bucket / factor : -((-bucket + factor - 1) / factor); };
  if (counts_.empty()) return nlohmann::json::array();
  auto const first = coarse(counts_.begin()->first);
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(coarse(counts_.rbegin()->first) - first + 1), 0);
  for (auto const& [bucket, count] : counts_) counts[static_cast<std::size_t>(coarse(bucket) - first)] += count;
  auto json = nlohmann::json::array({first});
  for (auto const count : counts) json.push_back(count);
  return json;
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
