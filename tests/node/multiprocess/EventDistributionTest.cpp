// The dispensers of a multi-process job: which ordinals each worker gets,
// and the shared queue's bookkeeping of who took which chunk.

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "lanes/core/Exception.h"
#include "lanes/node/EventDistribution.h"

namespace lanes::node {
namespace {

std::vector<std::uint64_t> take(EventDispenser& dispenser, std::size_t n) {
  std::vector<std::uint64_t> taken;
  while (taken.size() < n) {
    auto ordinal = dispenser.next();
    if (!ordinal) break;
    taken.push_back(*ordinal);
  }
  return taken;
}

TEST(RangeDispenser, GivesItsRangeThenNothing) {
  RangeDispenser range(3, 6);
  EXPECT_EQ(take(range, 10), (std::vector<std::uint64_t>{3, 4, 5}));
  EXPECT_FALSE(range.next());
}

TEST(RoundRobinDispenser, WorkerRGetsEveryPthEventAfterTheFirst) {
  RoundRobinDispenser worker1(10, 1, 3);
  EXPECT_EQ(take(worker1, 4), (std::vector<std::uint64_t>{11, 14, 17, 20}));
}

TEST(SharedEventQueue, ChunksAreHandedOutOnceAndTheirOwnersRemembered) {
  SharedEventQueue queue(5, 4);
  QueueDispenser a(queue, 0), b(queue, 1);
  EXPECT_EQ(take(a, 2), (std::vector<std::uint64_t>{5, 6}));     // chunk 0
  EXPECT_EQ(take(b, 5), (std::vector<std::uint64_t>{9, 10, 11, 12, 13}));  // chunks 1 and 2
  EXPECT_EQ(queue.chunksOf(0), (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(queue.chunksOf(1), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(queue.chunksClaimed(), 3u);
}

TEST(SharedEventQueue, AReplacementTakesADeadWorkersChunksFirst) {
  SharedEventQueue queue(0, 2);
  QueueDispenser dead(queue, 0), other(queue, 1);
  take(dead, 3);   // chunks 0 and 1
  take(other, 1);  // chunk 2
  EXPECT_EQ(queue.reassign(0, 2), (std::vector<std::uint64_t>{0, 1}));
  QueueDispenser replacement(queue, 2, queue.chunksOf(2));
  EXPECT_EQ(take(replacement, 6), (std::vector<std::uint64_t>{0, 1, 2, 3, 6, 7}));
  EXPECT_TRUE(queue.chunksOf(0).empty());
}

TEST(SharedEventQueue, ConcurrentWorkersInTwoProcessesTakeEveryEventOnce) {
  SharedEventQueue queue(0, 3);
  constexpr std::uint64_t kEvents = 3000;
  // The child takes events on 2 threads; the parent on 2 more; each records
  // its ordinals in a pipe-free way: through the owner table.
  auto drain = [&](unsigned worker) {
    QueueDispenser dispenser(queue, worker);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&] {
        while (auto ordinal = dispenser.next()) {
          if (*ordinal >= kEvents) break;
        }
      });
    }
    for (auto& thread : threads) thread.join();
  };
  pid_t const child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    drain(1);
    ::_exit(0);
  }
  drain(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto chunks = queue.chunksOf(0);
  auto const theirs = queue.chunksOf(1);
  chunks.insert(chunks.end(), theirs.begin(), theirs.end());
  std::sort(chunks.begin(), chunks.end());
  ASSERT_GE(chunks.size(), kEvents / 3);
  for (std::uint64_t c = 0; c < chunks.size(); ++c) EXPECT_EQ(chunks[c], c);  // each chunk once, none skipped
}

TEST(Distribution, NamesParseAndBadOnesAreErrors) {
  EXPECT_EQ(parseDistribution("queue"), Distribution::Queue);
  EXPECT_EQ(parseDistribution("round-robin"), Distribution::RoundRobin);
  EXPECT_STREQ(toString(Distribution::RoundRobin), "round-robin");
  EXPECT_THROW(parseDistribution("scatter"), Exception);
}

}  // namespace
}  // namespace lanes::node
