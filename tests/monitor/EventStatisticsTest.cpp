#include "lanes/monitor/EventStatistics.h"

#include <atomic>
#include <barrier>
#include <thread>

#include <gtest/gtest.h>

#include "Synthetic.h"

namespace lanes {
namespace {

TEST(EventStatistics, CountsTheLanesThatHoldAnEvent) {
  EventStatistics statistics;
  EXPECT_EQ(statistics.eventsInFlight(), 0u) << "before the job";
  statistics.jobStarted(test::syntheticJob(4));
  auto const now = Clock::now();
  statistics.eventStarted(0, {1, 1, 1}, now);
  statistics.eventStarted(2, {1, 1, 2}, now);
  EXPECT_EQ(statistics.eventsInFlight(), 2u);
  statistics.eventFinished(0, {1, 1, 1}, EventStatus::Done, now);
  EXPECT_EQ(statistics.eventsInFlight(), 1u);
  statistics.eventFinished(2, {1, 1, 2}, EventStatus::Done, kUntimed);  // a sampled job's untimed event
  EXPECT_EQ(statistics.eventsInFlight(), 0u);
}

// Lanes on their own threads start and finish events while another thread
// counts them, and a new job begins under its feet: every count is one the
// lanes could have held, and the lanes' steps in lockstep give exact ones.
TEST(EventStatistics, CountsEventsInFlightUnderContention) {
  constexpr unsigned kLanes = 4;
  constexpr int kRounds = 500;
  EventStatistics statistics;
  statistics.jobStarted(test::syntheticJob(kLanes));
  std::atomic<bool> done{false};
  std::atomic<unsigned> most{0};
  std::thread counter([&] {
    while (!done.load()) {
      auto const count = statistics.eventsInFlight();
      if (count > most.load()) most.store(count);
    }
  });
  std::vector<unsigned> allStarted(kRounds), allFinished(kRounds);
  std::barrier<> started(kLanes), finished(kLanes);
  test::onThreads(kLanes, [&](unsigned lane) {
    for (int round = 0; round < kRounds; ++round) {
      EventId const id{1, 1, static_cast<std::uint32_t>(round * kLanes + lane)};
      statistics.eventStarted(lane, id, Clock::now());
      started.arrive_and_wait();
      if (lane == 0) allStarted[round] = statistics.eventsInFlight();
      finished.arrive_and_wait();
      statistics.eventFinished(lane, id, EventStatus::Done, Clock::now());
      started.arrive_and_wait();
      if (lane == 0) allFinished[round] = statistics.eventsInFlight();
      finished.arrive_and_wait();
    }
  });
  done.store(true);
  counter.join();
  for (int round = 0; round < kRounds; ++round) {
    ASSERT_EQ(allStarted[round], kLanes) << round;
    ASSERT_EQ(allFinished[round], 0u) << round;
  }
  EXPECT_LE(most.load(), kLanes);
  EXPECT_EQ(statistics.toJson()["events"], kRounds * kLanes);
}

// 3000 events of 1..3000 ms, 1500 a lane (more than a lane's batch): the
// percentiles by nearest rank within half a bucket (0.55%), never above the
// longest, which is exact, as the slowest.
TEST(EventStatistics, GivesThePercentilesOfItsHistogram) {
  EventStatistics statistics(2);
  statistics.jobStarted(test::syntheticJob(2));
  auto const start = Clock::now();
  for (std::uint32_t ms = 1; ms <= 3000; ++ms) {
    unsigned const lane = ms % 2;
    statistics.eventStarted(lane, {1, 1, ms}, start);
    statistics.eventFinished(lane, {1, 1, ms}, EventStatus::Done, start + std::chrono::milliseconds(ms));
  }
  auto const json = statistics.toJson();
  EXPECT_EQ(json["events"], 3000u);
  EXPECT_NEAR(json["median_s"].get<double>(), 1.5, 1.5 * 0.0055);
  EXPECT_NEAR(json["p90_s"].get<double>(), 2.7, 2.7 * 0.0055);
  EXPECT_NEAR(json["p99_s"].get<double>(), 2.97, 2.97 * 0.0055);
  EXPECT_FLOAT_EQ(json["max_s"].get<float>(), 3.0f);
  EXPECT_LE(json["p99_s"].get<double>(), json["max_s"].get<double>());
  ASSERT_EQ(json["slowest"].size(), 2u);
  EXPECT_EQ(json["slowest"][0]["event"], "1:1:3000");
  EXPECT_EQ(json["slowest"][1]["event"], "1:1:2999");
  std::uint64_t inBuckets = 0;
  for (auto const& bucket : json["histogram"]["counts"]) inBuckets += bucket[1].get<std::uint64_t>();
  EXPECT_EQ(inBuckets, 3000u);
}

TEST(EventStatistics, CountingWhileAJobBeginsIsSafe) {
  EventStatistics statistics;
  std::atomic<bool> done{false};
  std::thread counter([&] {
    while (!done.load()) EXPECT_EQ(statistics.eventsInFlight(), 0u);
  });
  for (unsigned lanes = 1; lanes <= 200; ++lanes) statistics.jobStarted(test::syntheticJob(lanes));
  done.store(true);
  counter.join();
}

}  // namespace
}  // namespace lanes
