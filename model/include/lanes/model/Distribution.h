#pragma once
// A duration drawn as a measured run's calls were distributed: from a run
// report's histogram (call_times: 8 buckets to an octave), a bucket chosen
// with its measured frequency (Walker's alias method: one draw, one table
// look-up) and a time within it, uniformly (a bucket is 9% wide: the
// uniform and the log-uniform differ by less than 0.2%); every draw scaled so
// that the draws' mean is the measured mean (the report's exact sum over its
// calls), which the buckets' widths alone would miss by up to 4.5%.

#include <cstdint>
#include <map>
#include <vector>

#include "lanes/model/Random.h"
#include "lanes/monitor/LogHistogram.h"

namespace lanes::model {

// Externally synchronised (a value): counts of durations in logarithmic
// buckets, `perOctave` to an octave: bucket b holds [2^(b/N), 2^((b+1)/N)).
struct Buckets {
  int perOctave = LogHistogram::kBucketsPerOctave;
  std::map<int, std::uint64_t> counts;
  std::uint64_t total = 0;

  static Buckets of(LogHistogram const& histogram);
  void add(int bucket, std::uint64_t count);
  // Adds `other`'s counts, which must have as many buckets to an octave.
  void merge(Buckets const& other);
  double lowerEdge(int bucket) const;
  // The summed durations the buckets hold (each at its middle).
  double summed() const;
};

// Immutable after construction.
class Distribution {
 public:
  Distribution() = default;  // always 0
  // Always `seconds`.
  static Distribution constant(double seconds);
  // As the buckets say, scaled to `mean` (seconds; no counts give the constant `mean`).
  static Distribution measured(Buckets const& buckets, double mean);
  static Distribution measured(LogHistogram const& histogram, double mean) {
    return measured(Buckets::of(histogram), mean);
  }

  double draw(Random& random) const;
  double mean() const { return mean_; }

 private:
  // One bucket, all a draw reads of it on one cache line.
  struct Bucket {
    double low;    // its lower edge, scaled
    double width;  // its upper edge less its lower
    double keep;   // alias method: the probability of keeping the bucket drawn
    std::uint32_t alias;
  };
  std::vector<Bucket> buckets_;
  double mean_ = 0;
};

}  // namespace lanes::model
