// What the host saw of a CUDA queue's work, as the trace asks for it: the
// earliest sighting that covers a piece, sightings forgotten once behind the
// pieces asked for, and notes from many threads at once.

#include "accel/Sightings.h"

#include <gtest/gtest.h>

#include <latch>
#include <thread>
#include <vector>

namespace lanes::accel {
namespace {

using std::chrono::microseconds;

TEST(AccelSightingsTest, APieceNoSightingCoversIsNotSeenDone) {
  Sightings sightings;
  EXPECT_FALSE(sightings.doneBy(0));
  sightings.seen(3, Clock::now());  // pieces 0, 1 and 2
  EXPECT_TRUE(sightings.doneBy(2));
  EXPECT_FALSE(sightings.doneBy(3));
}

TEST(AccelSightingsTest, APieceIsDoneByTheEarliestSightingThatCoversIt) {
  Sightings sightings;
  auto const origin = Clock::now();
  sightings.seen(5, origin + microseconds(20));
  sightings.seen(2, origin + microseconds(10));  // noted later, by another waiter, but earlier
  sightings.seen(4, origin + microseconds(30));
  EXPECT_EQ(sightings.doneBy(1), origin + microseconds(10));
  EXPECT_EQ(sightings.doneBy(2), origin + microseconds(20));
  EXPECT_EQ(sightings.doneBy(4), origin + microseconds(20));
}

TEST(AccelSightingsTest, ForgetsWhatOnlyConcernsPiecesAlreadyAskedFor) {
  Sightings sightings;
  sightings.seen(1, Clock::now());
  EXPECT_FALSE(sightings.doneBy(1));
  EXPECT_FALSE(sightings.doneBy(0)) << "piece 0's sighting stays after piece 1 was asked for";
}

class AccelSightingsConcurrent : public testing::TestWithParam<unsigned> {};

// Callbacks and waiters on several threads note what they saw while the trace asks for the pieces in order:
// every answer is a sighting that covers the piece, and once all are noted, each is the earliest.
TEST_P(AccelSightingsConcurrent, NotesFromEveryThreadWhileThePiecesAreAskedFor) {
  unsigned const threads = GetParam();
  unsigned const perThread = 2000;
  auto const origin = Clock::now();
  auto const sawPiece = [&](std::uint64_t piece) { return origin + microseconds(piece); };  // covers [0, piece]
  Sightings sightings;
  std::latch started(threads + 1);
  std::vector<std::thread> noting;
  for (unsigned t = 0; t < threads; ++t) {
    noting.emplace_back([&, t] {
      started.arrive_and_wait();
      for (unsigned i = 0; i < perThread; ++i) {
        auto const piece = std::uint64_t{i} * threads + t;
        sightings.seen(piece + 1, sawPiece(piece));
      }
    });
  }
  started.arrive_and_wait();
  std::uint64_t const pieces = std::uint64_t{threads} * perThread;
  for (std::uint64_t piece = 0; piece < pieces / 2; ++piece) {
    if (auto const done = sightings.doneBy(piece)) {
      EXPECT_GE(*done, sawPiece(piece)) << piece;
    }
  }
  for (auto& thread : noting) thread.join();
  for (std::uint64_t piece = pieces / 2; piece < pieces; ++piece) EXPECT_EQ(sightings.doneBy(piece), sawPiece(piece));
}

INSTANTIATE_TEST_SUITE_P(Threads, AccelSightingsConcurrent, testing::Range(1u, 5u));

}  // namespace
}  // namespace lanes::accel
