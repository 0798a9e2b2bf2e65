#pragma once
// A histogram of positive durations in logarithmic buckets, 64 to an octave
// (each about 1.1% wide), from 1 ns to 10^12 s (a shorter duration counts in
// the first, a longer one in the last), held dense from the lowest bucket
// used to the highest (an add() is an index, not a search: the monitor adds
// every timed call), written sparse: what a run report carries of its event
// times so that the reports of a job's parts (a multi-process job's workers)
// merge into the distribution one process would have given. A percentile
// read from it is the middle of its bucket: within 0.55% of the exact one.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace lanes {

// Externally synchronised: a value type, used by one thread at a time.
class LogHistogram {
 public:
  static constexpr int kBucketsPerOctave = 64;

  // Inline: the monitor adds every timed call (ModuleStatistics), at least 3 an event.
  void add(double seconds, std::uint64_t count = 1) { addTo(bucketOf(seconds), count); }
  // add() of each of `n` durations, with the count added once for them all
  // (added at each, its store waited on the bucket's).
  void addEach(float const* seconds, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) ++countOf(bucketOf(seconds[i]));
    count_ += n;
  }
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
  // The lower edges of an octave's buckets, 2^(k/64), and for each of 256
  // equal slices of the octave's mantissas [1, 2) the bucket its start is in:
  // a bucket is wider than a slice, so a mantissa is in that bucket or the next.
  struct Edges {
    Edges();
    double lower[kBucketsPerOctave + 1];
    std::uint8_t bucketAt[256];
  };
  static Edges const edges_;

  // floor(64 log2(seconds)) without a logarithm, from the double's own
  // exponent and the top 8 bits of its mantissa (frexp() alone cost more
  // than the rest of an event's bookkeeping). Durations below a nanosecond
  // (a clock's zero; NaN too) share the lowest bucket, and those beyond
  // 10^12 s (31,700 years: a broken clock's) the highest.
  static int bucketOf(double seconds) {
    if (!(seconds >= 1e-9)) seconds = 1e-9;
    if (seconds > 1e12) seconds = 1e12;
    std::uint64_t bits;  // std::bit_cast, in C++17 (a public header)
    std::memcpy(&bits, &seconds, sizeof bits);
    int const exponent = static_cast<int>(bits >> 52) - 1023;  // positive and normal: no sign, no subnormal
    auto const mantissaBits = bits & ((std::uint64_t{1} << 52) - 1);
    double mantissa;  // in [1, 2)
    auto const mantissaOfOne = mantissaBits | (std::uint64_t{1023} << 52);
    std::memcpy(&mantissa, &mantissaOfOne, sizeof mantissa);
    int bucket = edges_.bucketAt[mantissaBits >> 44];
    if (mantissa >= edges_.lower[bucket + 1]) ++bucket;
    return exponent * kBucketsPerOctave + bucket;
  }
  void addTo(int bucket, std::uint64_t count) {
    countOf(bucket) += count;
    count_ += count;
  }
  // The count of `bucket`, the histogram widened to hold it where it did not.
  std::uint64_t& countOf(int bucket) {
    auto index = static_cast<std::size_t>(bucket - first_);  // wraps below first_: out of range too
    if (__builtin_expect(index >= counts_.size(), 0)) index = widenTo(bucket);
    return counts_[index];
  }
  // Makes room for `bucket` (in [kFirstBucket, kLastBucket]); its index.
  std::size_t widenTo(int bucket);

  std::vector<std::uint64_t> counts_;  // counts_[i]: bucket first_ + i
  int first_ = 0;
  std::uint64_t count_ = 0;
};

}  // namespace lanes
