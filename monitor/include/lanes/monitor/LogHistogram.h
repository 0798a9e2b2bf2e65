#pragma once
// A histogram of positive durations in logarithmic buckets, 64 to an octave
// (each about 1.1% wide), from 1 ns to 10^12 s (a shorter duration counts in
// the first, a longer one in the last), held dense from the lowest bucket
// used to the highest (an add() is an index, not a search: the monitor adds
// every timed call), written sparse: what a run report carries of its event
// times so that the reports of a job's parts (a multi-process job's workers)
// merge into the distribution one process would have given. A percentile
// read from it is the middle of its bucket: within 0.55% of the exact one.

#include <cstdint>
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
  // [bucket, count] pairs of the buckets that hold any, ascending: bucket b
  // holds [2^(b/64), 2^((b+1)/64)) seconds.
  std::vector<std::pair<int, std::uint64_t>> buckets() const;
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

  // The buckets of 1 ns and 10^12 s.
  static int const kFirstBucket;
  static int const kLastBucket;

 private:
  void addTo(int bucket, std::uint64_t count);
  // Makes room for `bucket` (in [kFirstBucket, kLastBucket]); its index.
  std::size_t widenTo(int bucket);

  std::vector<std::uint64_t> counts_;  // counts_[i]: bucket first_ + i
  int first_ = 0;
  std::uint64_t count_ = 0;
};

}  // namespace lanes
