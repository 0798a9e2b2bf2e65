#include "lanes/monitor/LogHistogram.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lanes/core/Exception.h"

namespace lanes {

namespace {

double middleOf(int bucket) { return std::exp2((bucket + 0.5) / LogHistogram::kBucketsPerOctave); }

}  // namespace

LogHistogram::Edges::Edges() {
  for (int k = 0; k <= kBucketsPerOctave; ++k) lower[k] = std::exp2(double(k) / kBucketsPerOctave);
  for (int slice = 0; slice < 256; ++slice) {
    double const start = 1.0 + slice / 256.0;
    int k = 0;
    while (lower[k + 1] <= start) ++k;
    bucketAt[slice] = static_cast<std::uint8_t>(k);
  }
}

LogHistogram::Edges const LogHistogram::edges_;
int const LogHistogram::kFirstBucket = bucketOf(1e-9);
int const LogHistogram::kLastBucket = bucketOf(1e12);

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
  for (std::size_t i = 0; i < other.counts_.size(); ++i) {
    if (other.counts_[i] != 0) addTo(other.first_ + static_cast<int>(i), other.counts_[i]);
  }
}

double LogHistogram::percentile(double fraction) const {
  if (count_ == 0) return 0.0;
  auto const nearest = static_cast<std::uint64_t>(std::ceil(fraction * static_cast<double>(count_)));
  auto const rank = std::clamp<std::uint64_t>(nearest, 1, count_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return middleOf(first_ + static_cast<int>(i));
  }
  return middleOf(first_ + static_cast<int>(counts_.size()) - 1);  // not reached: rank <= count_, the counts' sum
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
