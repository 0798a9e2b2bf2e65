#include "lanes/monitor/LogHistogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "lanes/core/Exception.h"

namespace lanes {

namespace {

// Durations below a nanosecond (a clock's zero) share the lowest bucket, and
// those beyond 10^12 s (31,700 years: a broken clock's) the highest.
constexpr double kShortest = 1e-9;
constexpr double kLongest = 1e12;

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

// floor(64 log2(seconds)) without a logarithm, from the double's own
// exponent and the top 8 bits of its mantissa: the monitor adds every timed
// call's time (ModuleStatistics), at least 3 an event, and frexp() alone
// cost more than the rest of the event's bookkeeping.
int bucketOf(double seconds) {
  if (!(seconds >= kShortest)) seconds = kShortest;  // NaN too
  if (seconds > kLongest) seconds = kLongest;
  auto const bits = std::bit_cast<std::uint64_t>(seconds);
  int const exponent = static_cast<int>(bits >> 52) - 1023;  // positive and normal: no sign, no subnormal
  auto const mantissaBits = bits & ((std::uint64_t{1} << 52) - 1);
  double const mantissa = std::bit_cast<double>(mantissaBits | (std::uint64_t{1023} << 52));  // in [1, 2)
  int bucket = edges.bucketAt[mantissaBits >> 44];
  if (mantissa >= edges.lower[bucket + 1]) ++bucket;
  return exponent * LogHistogram::kBucketsPerOctave + bucket;
}

double middleOf(int bucket) { return std::exp2((bucket + 0.5) / LogHistogram::kBucketsPerOctave); }

}  // namespace

int const LogHistogram::kFirstBucket = bucketOf(kShortest);
int const LogHistogram::kLastBucket = bucketOf(kLongest);

void LogHistogram::add(double seconds, std::uint64_t count) {
  if (count == 0) return;
  addTo(bucketOf(seconds), count);
}

void LogHistogram::addTo(int bucket, std::uint64_t count) {
  auto index = static_cast<std::size_t>(bucket - first_);  // wraps below first_: out of range too
  if (index >= counts_.size()) index = widenTo(bucket);
  counts_[index] += count;
  count_ += count;
}

std::size_t LogHistogram::widenTo(int bucket) {
  if (counts_.empty()) {
    first_ = bucket;
    counts_.assign(1, 0);
  } else if (bucket < first_) {
    counts_.insert(counts_.begin(), static_cast<std::size_t>(first_ - bucket), 0);
    first_ = bucket;
  } else {
    counts_.resize(static_cast<std::size_t>(bucket - first_) + 1, 0);
  }
  return static_cast<std::size_t>(bucket - first_);
}

std::vector<std::pair<int, std::uint64_t>> LogHistogram::buckets() const {
  std::vector<std::pair<int, std::uint64_t>> held;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) held.emplace_back(first_ + static_cast<int>(i), counts_[i]);
  }
  return held;
}

void LogHistogram::merge(LogHistogram const& other) {
  for (auto const& [bucket, count] : other.buckets()) addTo(bucket, count);
}

double LogHistogram::percentile(double fraction) const {
  if (count_ == 0) return 0.0;
  auto const nearest = static_cast<std::uint64_t>(std::ceil(fraction * static_cast<double>(count_)));
  auto const rank = std::clamp<std::uint64_t>(nearest, 1, count_);
  std::uint64_t seen = 0;
  for (auto const& [bucket, count] : buckets()) {
    seen += count;
    if (seen >= rank) return middleOf(bucket);
  }
  return middleOf(buckets().back().first);
}

nlohmann::json LogHistogram::toJson() const {
  auto counts = nlohmann::json::array();
  for (auto const& [bucket, count] : buckets()) counts.push_back({bucket, count});
  return {{"buckets_per_octave", kBucketsPerOctave}, {"counts", counts}};
}

nlohmann::json LogHistogram::toCompactJson(int bucketsPerOctave) const {
  auto const factor = kBucketsPerOctave / bucketsPerOctave;
  auto const coarse = [factor](int bucket) { return bucket >= 0 ? bucket / factor : -((-bucket + factor - 1) / factor); };
  auto const held = buckets();
  if (held.empty()) return nlohmann::json::array();
  auto const first = coarse(held.front().first);
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(coarse(held.back().first) - first + 1), 0);
  for (auto const& [bucket, count] : held) counts[static_cast<std::size_t>(coarse(bucket) - first)] += count;
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
    auto const bucket = pair[0].get<long long>();
    if (bucket < kFirstBucket || bucket > kLastBucket) {
      throw Exception("not a lanes histogram: bucket " + std::to_string(bucket) + " is outside " +
                      std::to_string(kFirstBucket) + ".." + std::to_string(kLastBucket) + " (1 ns to 10^12 s)");
    }
    if (auto const count = pair[1].get<std::uint64_t>()) histogram.addTo(static_cast<int>(bucket), count);
  }
  return histogram;
}

}  // namespace lanes
