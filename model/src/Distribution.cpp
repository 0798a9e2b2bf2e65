#include "lanes/model/Distribution.h"

#include <cmath>

namespace lanes::model {

Distribution Distribution::constant(double seconds) {
  Distribution distribution;
  distribution.mean_ = seconds;
  return distribution;
}

Buckets Buckets::of(LogHistogram const& histogram) {
  Buckets buckets;
  for (auto const& [bucket, count] : histogram.buckets()) buckets.add(bucket, count);
  return buckets;
}

void Buckets::add(int bucket, std::uint64_t count) {
  counts[bucket] += count;
  total += count;
}

void Buckets::merge(Buckets const& other) {
  for (auto const& [bucket, count] : other.counts) add(bucket, count);
}

double Buckets::lowerEdge(int bucket) const { return std::exp2(static_cast<double>(bucket) / perOctave); }

double Buckets::summed() const {
  double sum = 0;
  for (auto const& [bucket, count] : counts) sum += static_cast<double>(count) * std::exp2((bucket + 0.5) / perOctave);
  return sum;
}

Distribution Distribution::measured(Buckets const& counts, double mean) {
  if (counts.total == 0 || !(mean > 0)) return constant(mean);
  Distribution distribution;
  distribution.mean_ = mean;
  auto const n = counts.counts.size();
  double const total = static_cast<double>(counts.total);
  double const ratio = std::exp2(1.0 / counts.perOctave);
  double unscaled = 0;
  std::vector<double> weight;
  for (auto const& [bucket, count] : counts.counts) {
    auto const low = counts.lowerEdge(bucket);
    weight.push_back(static_cast<double>(count) / total);
    distribution.buckets_.push_back({low, low * (ratio - 1), 1.0, static_cast<std::uint32_t>(weight.size() - 1)});
    unscaled += weight.back() * low * (1 + ratio) / 2;
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
