// The board the workers of a multi-process job show their parent: events
// counted from several threads of several processes, heartbeats, seats
// reset for a replacement.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "lanes/core/Exception.h"
#include "lanes/node/WorkerBoard.h"

namespace lanes::node {
namespace {

void countFrom(WorkerBoard& board, unsigned seat, unsigned threads, unsigned each) {
  std::vector<std::thread> counting;
  for (unsigned t = 0; t < threads; ++t) {
    counting.emplace_back([&] {
      for (unsigned i = 0; i < each; ++i) board.addEvent(seat);
    });
  }
  for (auto& thread : counting) thread.join();
}

class WorkerBoardThreads : public testing::TestWithParam<unsigned> {};

// A forked child and this process count at once, on their seats and on a shared one.
TEST_P(WorkerBoardThreads, CountsEveryEventOfEveryThreadOfEveryProcess) {
  unsigned const threads = GetParam();
  WorkerBoard board(3);
  pid_t const child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    countFrom(board, 1, threads, 5000);
    countFrom(board, 2, threads, 1000);
    ::_exit(0);
  }
  countFrom(board, 0, threads, 3000);
  countFrom(board, 2, threads, 1000);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(board.events(0), threads * 3000u);
  EXPECT_EQ(board.events(1), threads * 5000u);
  EXPECT_EQ(board.events(2), threads * 2000u);
}

INSTANTIATE_TEST_SUITE_P(Threads, WorkerBoardThreads, testing::Range(1u, 5u));

TEST(WorkerBoard, ADescriptorMapsTheSameBoard) {
  WorkerBoard board(2);
  WorkerBoard seen(WorkerBoard::Descriptor{::dup(board.fd())});  // as a worker after an exec
  EXPECT_EQ(seen.seats(), 2u);
  EXPECT_EQ(board.lastBeat(1), 0);
  seen.addEvent(1);
  seen.beat(1);
  EXPECT_EQ(board.events(1), 1u);
  EXPECT_GT(board.lastBeat(1), 0);
  EXPECT_EQ(board.events(0), 0u);
}

TEST(WorkerBoard, AReleaseIsSeenThroughEveryMapping) {
  WorkerBoard board(2);
  WorkerBoard seen(WorkerBoard::Descriptor{::dup(board.fd())});
  EXPECT_FALSE(seen.released());
  board.release();
  EXPECT_TRUE(seen.released());
  EXPECT_EQ(seen.events(0) + seen.events(1), 0u);  // the flag is no seat's
}

TEST(WorkerBoard, AResetSeatStartsFromNothing) {
  WorkerBoard board(1);
  board.addEvent(0);
  board.beat(0);
  board.reset(0);
  EXPECT_EQ(board.events(0), 0u);
  EXPECT_EQ(board.lastBeat(0), 0);
}

TEST(WorkerBoard, NoSeatBeyondItsSeats) {
  WorkerBoard board(2);
  EXPECT_THROW(board.addEvent(2), Exception);
  EXPECT_THROW(board.events(7), Exception);
}

// It beats at once, then every period while it exists, and counts only the
// events that finished without error.
TEST(WorkerPresence, BeatsWhileItLivesAndCountsDoneEvents) {
  WorkerBoard board(2);
  std::int64_t first = 0;
  {
    WorkerPresence presence(board, 1, std::chrono::milliseconds(1));
    first = board.lastBeat(1);
    EXPECT_GT(first, 0);
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (board.lastBeat(1) == first && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    EXPECT_GT(board.lastBeat(1), first);
    presence.eventFinished(0, EventId{1, 1, 1}, EventStatus::Done, Clock::now());
    presence.eventFinished(0, EventId{1, 1, 2}, EventStatus::Failed, Clock::now());
    presence.eventFinished(1, EventId{1, 1, 3}, EventStatus::Done, Clock::now());
  }
  EXPECT_EQ(board.events(1), 2u);
  EXPECT_EQ(board.events(0), 0u);
}

}  // namespace
}  // namespace lanes::node
