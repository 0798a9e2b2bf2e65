// The lanes' runs of ordinals: taken in order, split in halves for a lane
// that has finished, cut at the input's end, and every ordinal taken once
// while lanes claim, take and steal on threads of their own.

#include "lanes/core/detail/ClaimedRuns.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace lanes::detail {
namespace {

using std::chrono::milliseconds;

// Lanes that take one ordinal at a time, so that what a thief finds does not
// depend on how fast the test runs (a lane grabs up to a millisecond's worth).
constexpr std::uint64_t kOneAtATime = 1;

std::vector<std::uint64_t> takeAll(ClaimedRuns& runs, unsigned lane) {
  std::vector<std::uint64_t> taken;
  for (std::uint64_t ordinal = 0; runs.take(lane, ordinal);) taken.push_back(ordinal);
  return taken;
}

bool takeOne(ClaimedRuns& runs, unsigned lane) {
  std::uint64_t ordinal = 0;
  return runs.take(lane, ordinal);
}

std::vector<std::uint64_t> range(std::uint64_t first, std::uint64_t end) {
  std::vector<std::uint64_t> ordinals;
  for (auto o = first; o < end; ++o) ordinals.push_back(o);
  return ordinals;
}

TEST(ClaimedRunsTest, ALaneTakesItsRunInOrder) {
  ClaimedRuns runs(2, kOneAtATime);
  EXPECT_FALSE(takeOne(runs, 0));
  runs.assign(0, 10, 14);
  EXPECT_EQ(takeAll(runs, 0), range(10, 14));
  EXPECT_FALSE(takeOne(runs, 1));
}

TEST(ClaimedRunsTest, ALaneThatHasFinishedTakesTheBackHalfOfTheFullestRun) {
  ClaimedRuns runs(3, kOneAtATime);
  runs.assign(0, 0, 100);
  runs.assign(1, 100, 110);
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(takeOne(runs, 0));  // 98 left
  ASSERT_TRUE(takeOne(runs, 1));                               // 9 left
  ASSERT_TRUE(runs.steal(2));
  EXPECT_EQ(runs.steals(), 1u);
  EXPECT_EQ(takeAll(runs, 2), range(51, 100));
  EXPECT_EQ(takeAll(runs, 0), range(2, 51));
}

TEST(ClaimedRunsTest, ARunWithOneOrdinalLeftIsNotSplit) {
  ClaimedRuns runs(2, kOneAtATime);
  runs.assign(0, 0, 2);
  ASSERT_TRUE(takeOne(runs, 0));
  EXPECT_FALSE(runs.steal(1));
  EXPECT_EQ(takeAll(runs, 0), range(1, 2));
}

TEST(ClaimedRunsTest, NoRunGoesOnPastTheInputsEnd) {
  ClaimedRuns runs(2, kOneAtATime);
  runs.assign(0, 0, 100);
  runs.assign(1, 100, 200);
  runs.endInputAt(150);
  runs.endInputAt(160);  // a later end changes nothing
  EXPECT_EQ(takeAll(runs, 1), range(100, 150));
  ASSERT_TRUE(runs.steal(1));  // half of the 100 of lane 0, none past the end
  EXPECT_EQ(takeAll(runs, 1), range(50, 100));
  runs.endInputAt(20);
  EXPECT_EQ(takeAll(runs, 0), range(0, 20));
}

TEST(ClaimedRunsTest, ClearForgetsTheRunsAndTheEnd) {
  ClaimedRuns runs(2, kOneAtATime);
  runs.assign(0, 0, 100);
  runs.endInputAt(10);
  ASSERT_TRUE(takeOne(runs, 0));
  ASSERT_TRUE(runs.steal(1));
  runs.clear();
  EXPECT_FALSE(takeOne(runs, 0));
  EXPECT_FALSE(takeOne(runs, 1));
  EXPECT_EQ(runs.steals(), 0u);
  runs.assign(0, 0, 30);
  EXPECT_EQ(takeAll(runs, 0), range(0, 30));
}

TEST(ClaimedRunsTest, StealingIsWorthItWhenTheHalfOutlastsTwoStarts) {
  EXPECT_TRUE(worthStealing(10, milliseconds(1), milliseconds(4)));    // 10 ms against 8
  EXPECT_FALSE(worthStealing(10, milliseconds(1), milliseconds(5)));   // 10 ms against 10
  EXPECT_FALSE(worthStealing(0, milliseconds(1), milliseconds(0)));    // nothing to take
  EXPECT_TRUE(worthStealing(1, milliseconds(0), milliseconds(100)));   // the lane's pace unknown yet
  EXPECT_TRUE(worthStealing(500, milliseconds(0), milliseconds(0)));
}

TEST(ClaimedRunsTest, LanesOnThreadsOfTheirOwnTakeEveryOrdinalOnce) {
  // As the scheduler's lanes do: take from the own run (a few ordinals
  // grabbed at a time, as a lane does), else claim the next run of 1000 from
  // a shared counter, else steal; an ordinal at or past the input's end
  // (19,500) ends the input instead of being processed.
  constexpr unsigned kLanes = 4;
  constexpr std::uint64_t kRun = 1000, kEnd = 19500;
  for (int attempt = 0; attempt < 20; ++attempt) {
    ClaimedRuns runs(kLanes);
    std::atomic<std::uint64_t> counter{0};
    std::atomic<bool> halted{false};
    std::vector<std::atomic<int>> times(kEnd);
    std::vector<std::thread> lanes;
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      lanes.emplace_back([&, lane] {
        while (true) {
          std::uint64_t ordinal = 0;
          if (!runs.take(lane, ordinal)) {
            if (!halted.load()) {
              auto const first = counter.fetch_add(kRun);
              runs.assign(lane, first, first + kRun);
            } else if (!runs.steal(lane)) {
              return;
            }
            continue;
          }
          if (ordinal >= kEnd) {
            runs.endInputAt(ordinal);
            halted = true;
            continue;
          }
          times[ordinal].fetch_add(1);
        }
      });
    }
    for (auto& lane : lanes) lane.join();
    for (std::uint64_t o = 0; o < kEnd; ++o) ASSERT_EQ(times[o].load(), 1) << "ordinal " << o << ", attempt " << attempt;
  }
}

}  // namespace
}  // namespace lanes::detail
