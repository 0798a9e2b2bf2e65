// Durations drawn as a histogram says, with the measured mean.

#include "lanes/model/Distribution.h"

#include <gtest/gtest.h>

namespace lanes::model::test {
namespace {

TEST(DistributionTest, AConstantIsAlwaysItself) {
  Random random(1);
  auto const constant = Distribution::constant(0.25);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(constant.draw(random), 0.25);
  EXPECT_EQ(Distribution().draw(random), 0.0);
}

TEST(DistributionTest, DrawsKeepTheMeasuredMeanAndStayInTheMeasuredBuckets) {
  LogHistogram histogram;
  histogram.add(0.001, 300);
  histogram.add(0.004, 100);
  auto const distribution = Distribution::measured(histogram, 0.00175);
  Random random(7);
  double sum = 0, least = 1, most = 0;
  int const draws = 200000;
  for (int i = 0; i < draws; ++i) {
    auto const x = distribution.draw(random);
    sum += x;
    least = std::min(least, x);
    most = std::max(most, x);
  }
  EXPECT_NEAR(sum / draws, 0.00175, 0.00175 * 0.01);
  EXPECT_GT(least, 0.001 * 0.98);
  EXPECT_LT(most, 0.004 * 1.02);
  EXPECT_DOUBLE_EQ(distribution.mean(), 0.00175);
}

TEST(DistributionTest, AnEmptyHistogramGivesItsMeanAsAConstant) {
  Random random(1);
  EXPECT_EQ(Distribution::measured(LogHistogram(), 0.5).draw(random), 0.5);
}

}  // namespace
}  // namespace lanes::model::test
