#include "lanes/model/Distribution.h"

#include <cmath>

namespace lanes::model {

Distribution Distribution::constant(double seconds) {
  Distribution distribution;
  distribution.mean_ = seconds;
  return distribution;
}

Distribution Distribution::measured(LogHistogram const& histogram, double mean) {
  auto const counts = histogram.buckets();
  if (counts.empty() || !(mean > 0)) return constant(mean);
  Distribution distribution;
  distribution.mean_ = mean;
  auto const n = counts.size();
  double const total = static_cast<double>(histogram.count());
  double const ratio = std::exp2(1.0 / LogHistogram::kBucketsPerOctave);
  double unscaled = 0;
  std::vector<double> weight(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto const low = std::exp2(static_cast<double>(counts[i].first) / LogHistogram::kBucketsPerOctave);
    weight[i] = static_cast<double>(counts[i].second) / total;
    distribution.buckets_.push_back({low, low * (ratio - 1), 1.0, static_cast<std::uint32_t>(i)});
    unscaled += weight[i] * low * (1 + ratio) / 2;
  }
  for (auto& bucket : distribution.buckets_) {
    bucket.low *= mean / unscaled;
    bucket.width *= mean / unscaled;
  }
  // Walker's alias table (Vose's construction).
  std::vector<std::size_t> small, large;
  std::vector<double> scaled(n);
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = weight[i] * static_cast<double>(n);
    (scaled[i] < 1 ? small : large).push_back(i);
  }
  while (!small.empty() && !large.empty()) {
    auto const s = small.back();
    small.pop_back();
    auto const l = large.back();
    distribution.buckets_[s].keep = scaled[s];
    distribution.buckets_[s].alias = static_cast<std::uint32_t>(l);
    scaled[l] -= 1 - scaled[s];
    if (scaled[l] < 1) {
      large.pop_back();
      small.push_back(l);
    }
  }
  return distribution;
}

double Distribution::draw(Random& random) const {
  if (buckets_.empty()) return mean_;
  auto const* bucket = &buckets_[random.below(buckets_.size())];
  if (random.uniform() >= bucket->keep) bucket = &buckets_[bucket->alias];
  return bucket->low + bucket->width * random.uniform();
}

}  // namespace lanes::model
