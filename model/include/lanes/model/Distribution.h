#pragma once
// A duration drawn as a measured run's calls were distributed: from a run
// report's histogram (LogHistogram: 64 buckets to an octave), a bucket chosen
// with its measured frequency (Walker's alias method: one draw, one table
// look-up) and a time within it, uniformly (a bucket is 1.1% wide: the
// uniform and the log-uniform differ by less than 0.003%); every draw scaled so
// that the draws' mean is the measured mean (the report's exact sum over its
// calls), which the buckets' widths alone would miss by up to 0.55%.

#include <cstdint>
#include <vector>

#include "lanes/model/Random.h"
#include "lanes/monitor/LogHistogram.h"

namespace lanes::model {

// Immutable after construction.
class Distribution {
 public:
  Distribution() = default;  // always 0
  // Always `seconds`.
  static Distribution constant(double seconds);
  // As `histogram`'s buckets, scaled to `mean` (seconds; a histogram of no
  // calls gives the constant `mean`).
  static Distribution measured(LogHistogram const& histogram, double mean);

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
