#include "lanes/monitor/MonitorCost.h"

#include <gtest/gtest.h>

namespace lanes {
namespace {

TEST(MonitorCost, EstimatesTheRecordsTimesTheirMeasuredCost) {
  auto const cost = MonitorCost::estimate(3000, 1000, 500);
  EXPECT_EQ(cost.calls, 3000u);
  EXPECT_EQ(cost.waits, 1000u);
  EXPECT_EQ(cost.events, 500u);
  EXPECT_GT(cost.nsPerCall, 0.0);
  EXPECT_GT(cost.nsPerWait, 0.0);
  EXPECT_DOUBLE_EQ(cost.seconds, 1e-9 * (3000 * cost.nsPerCall + 1500 * cost.nsPerWait));
}

TEST(MonitorCost, NothingTimedCostsNothing) {
  auto const cost = MonitorCost::estimate(0, 0, 0);
  EXPECT_EQ(cost.seconds, 0.0);
  EXPECT_EQ(cost.toJson(2.0)["thread_time_share"], 0.0);
}

TEST(MonitorCost, JsonGivesTheEstimateAsAShareOfTheThreadTime) {
  auto const cost = MonitorCost::estimate(1'000'000, 10, 20);
  auto const json = cost.toJson(4.0);
  EXPECT_EQ(json["timed_calls"], 1'000'000u);
  EXPECT_EQ(json["timed_waits"], 10u);
  EXPECT_EQ(json["timed_events"], 20u);
  EXPECT_EQ(json["ns_per_call"], cost.nsPerCall);
  EXPECT_EQ(json["ns_per_wait"], cost.nsPerWait);
  EXPECT_EQ(json["estimated_s"], cost.seconds);
  EXPECT_DOUBLE_EQ(json["thread_time_share"].get<double>(), cost.seconds / 4.0);
  EXPECT_EQ(cost.toJson(0.0)["thread_time_share"], 0.0);  // no thread time: no share
}

}  // namespace
}  // namespace lanes
