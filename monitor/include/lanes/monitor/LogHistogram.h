#pragma once
// A histogram of positive durations in logarithmic buckets, 64 to an octave
// (each about 1.1% wide), kept sparse: what a run report carries of its event
// times so that the reports of a job's parts (a multi-process job's workers)
// merge into the distribution one process would have given. A percentile
// read from it is the middle of its bucket: within 0.55% of the exact one.

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace lanes {

// Externally synchronised: a value type, used by one thread at a time.
class LogHistogram {
 public:
  static constexpr int kBucketsPerOctave = 64;

  void add(double seconds, std::uint64_t count = 1);
  void merge(LogHistogram const& other);

  std::uint64_t count() const { return count_; }
  // [bucket, count] pairs, ascending: bucket b holds [2^(b/64), 2^((b+1)/64)) seconds.
  std::vector<std::pair<int, std::uint64_t>> buckets() const { return {counts_.begin(), counts_.end()}; }
  // The nearest-rank percentile (`fraction` in [0, 1]); 0 when empty.
  double percentile(double fraction) const;

  // {buckets_per_octave, counts: [[bucket, count], ...]}: bucket b holds
  // [2^(b/64), 2^((b+1)/64)) seconds.
  nlohmann::json toJson() const;
  // [first, c0, c1, ...]: the counts in `bucketsPerOctave` buckets to an
  // octave (a divisor of 64), dense from the first that holds any: bucket
  // first + i holds ci, [2^(b/N), 2^((b+1)/N)) seconds; [] when empty.
  // Compact where a report holds many histograms (call_times).
  nlohmann::json toCompactJson(int bucketsPerOctave) const;
  // Throws lanes::Exception when `json` is not what toJson() writes.
  static LogHistogram fromJson(nlohmann::json const& json);

 private:
  std::map<int, std::uint64_t> counts_;  // by bucket, ascending
  std::uint64_t count_ = 0;
};

}  // namespace lanes
