#include "lanes/monitor/LogHistogram.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "lanes/core/Exception.h"

namespace lanes {
namespace {

// The nearest-rank percentile of sorted values, as EventStatistics gives it.
double exactPercentile(std::vector<double> const& sorted, double fraction) {
  auto const rank = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

// A bucket is 2^(1/64) wide; its middle is within half of that of any value in it.
constexpr double kRelativeError = 0.0055;

TEST(LogHistogram, PercentilesAreWithinHalfABucketOfTheExactOnes) {
  std::mt19937 random(7);
  std::lognormal_distribution<double> times(std::log(2e-3), 1.0);
  std::vector<double> values(10000);
  LogHistogram histogram;
  for (auto& value : values) histogram.add(value = times(random));
  std::sort(values.begin(), values.end());
  EXPECT_EQ(histogram.count(), values.size());
  for (auto const fraction : {0.0, 0.01, 0.5, 0.9, 0.99, 1.0}) {
    auto const exact = exactPercentile(values, fraction);
    EXPECT_NEAR(histogram.percentile(fraction), exact, kRelativeError * exact) << fraction;
  }
}

// Its buckets are found without a logarithm; they are the logarithm's.
TEST(LogHistogram, BucketsAreFloorsOf64TimesTheLog2) {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> exponent(-29.8, 10.0);  // from 1 ns (the shortest apart)
  for (int i = 0; i < 100000; ++i) {
    auto const seconds = std::exp2(exponent(random));
    LogHistogram histogram;
    histogram.add(seconds);
    auto const expected = static_cast<int>(std::floor(std::log2(seconds) * 64));
    // Only a value within rounding of an edge may land on the edge's other side.
    if (std::abs(std::log2(seconds) * 64 - std::round(std::log2(seconds) * 64)) < 1e-9) continue;
    ASSERT_EQ(histogram.buckets().front().first, expected) << seconds;
  }
}

TEST(LogHistogram, ItsCompactFormCountsCoarserBucketsFromTheFirst) {
  LogHistogram histogram;
  histogram.add(1.0, 2);   // bucket 0: coarse 0
  histogram.add(1.05, 1);  // bucket 4: coarse 0
  histogram.add(2.0, 3);   // bucket 64: coarse 8
  histogram.add(0.5, 1);   // bucket -64: coarse -8
  auto const json = histogram.toCompactJson(8);
  std::vector<std::int64_t> expected(18, 0);
  expected[0] = -8;  // the first bucket, then its count and the next ones'
  expected[1] = 1;
  expected[9] = 3;
  expected[17] = 3;
  EXPECT_EQ(json.get<std::vector<std::int64_t>>(), expected);
  EXPECT_EQ(LogHistogram().toCompactJson(8).size(), 0u);
}

TEST(LogHistogram, MergedPartsGiveTheWholesPercentiles) {
  LogHistogram whole, first, second;
  for (int i = 1; i <= 1000; ++i) {
    auto const seconds = 1e-4 * i;
    whole.add(seconds);
    (i % 3 ? first : second).add(seconds);
  }
  first.merge(second);
  EXPECT_EQ(first.count(), whole.count());
  for (auto const fraction : {0.5, 0.9, 0.99}) EXPECT_EQ(first.percentile(fraction), whole.percentile(fraction));
}

TEST(LogHistogram, ABatchAddedAtOnceGivesTheSameBucketsAsOneByOne) {
  std::vector<float> batch;
  for (int i = 0; i < 3000; ++i) batch.push_back(static_cast<float>(1e-7 * std::pow(1.003, i)));  // over 4 octaves
  batch.push_back(0.0f);  // below a nanosecond: the first bucket, which widens the histogram downwards
  LogHistogram oneByOne, atOnce;
  for (auto const seconds : batch) oneByOne.add(seconds);
  atOnce.addEach(batch.data(), batch.size());
  EXPECT_EQ(atOnce.count(), batch.size());
  EXPECT_EQ(atOnce.buckets(), oneByOne.buckets());
}

TEST(LogHistogram, RoundTripsThroughJson) {
  LogHistogram histogram;
  histogram.add(3e-3, 5);
  histogram.add(2.0);
  histogram.add(0.0);  // a clock's zero: the lowest bucket, not a crash
  auto const text = histogram.toJson().dump();
  auto const back = LogHistogram::fromJson(nlohmann::json::parse(text));
  EXPECT_EQ(back.count(), 7u);
  EXPECT_EQ(back.toJson(), histogram.toJson());
  EXPECT_EQ(LogHistogram().percentile(0.5), 0.0);
}

// Held dense from the lowest bucket used to the highest, whichever comes first.
TEST(LogHistogram, GrowsBothWaysAndClampsTheExtremes) {
  LogHistogram histogram;
  histogram.add(1.0);
  histogram.add(0.25);  // below: room made in front
  histogram.add(4.0, 2);
  histogram.add(1.0);
  EXPECT_EQ(histogram.buckets(), (std::vector<std::pair<int, std::uint64_t>>{{-128, 1}, {0, 2}, {128, 2}}));
  histogram.add(1e30);
  histogram.add(std::numeric_limits<double>::infinity());
  histogram.add(-1.0);
  auto const buckets = histogram.buckets();
  EXPECT_EQ(buckets.front(), (std::pair<int, std::uint64_t>{LogHistogram::kFirstBucket, 1}));
  EXPECT_EQ(buckets.back(), (std::pair<int, std::uint64_t>{LogHistogram::kLastBucket, 2}));
  EXPECT_EQ(histogram.count(), 8u);
  EXPECT_EQ(LogHistogram::fromJson(histogram.toJson()).toJson(), histogram.toJson());
}

TEST(LogHistogram, RefusesJsonThatIsNotOne) {
  for (auto const* text : {R"(null)", R"({"counts": []})", R"({"buckets_per_octave": 32, "counts": []})",
                           R"({"buckets_per_octave": 64, "counts": [[1]]})",
                           R"({"buckets_per_octave": 64, "counts": [[1, -2]]})",
                           // Held dense: a bucket past 10^12 s would cost memory for every one between.
                           R"({"buckets_per_octave": 64, "counts": [[-2000000000, 1], [2000000000, 1]]})",
                           R"({"buckets_per_octave": 64, "counts": [[4000, 1]]})"}) {
    EXPECT_THROW(LogHistogram::fromJson(nlohmann::json::parse(text)), Exception) << text;
  }
}

}  // namespace
}  // namespace lanes
