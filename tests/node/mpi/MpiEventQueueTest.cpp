// The MPI event queue under contention: every rank of `mpirun -np R
// lanes_mpi_tests` runs a dispenser that several threads drain at once, as
// lanes do; together the ranks must take every event exactly once. And a
// rank that raises the stop flag stops the others.

#include <mpi.h>

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "MpiEventQueue.h"

namespace lanes::node {
namespace {

std::vector<std::uint64_t> drain(MpiQueueDispenser& dispenser, unsigned threads) {
  std::vector<std::vector<std::uint64_t>> taken(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      while (auto ordinal = dispenser.next()) taken[t].push_back(*ordinal);
    });
  }
  for (auto& thread : pool) thread.join();
  std::vector<std::uint64_t> all;
  for (auto const& ordinals : taken) all.insert(all.end(), ordinals.begin(), ordinals.end());
  return all;
}

class MpiEventQueueTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(MpiEventQueueTest, RanksAndThreadsTakeEveryEventOnce) {
  constexpr std::uint64_t kEvents = 20'000;
  std::vector<std::uint64_t> mine;
  {
    MpiJobWindow window(MPI_COMM_WORLD);
    MpiAgent agent(window, [] {}, MpiAgent::Claims::Ahead);
    MpiQueueDispenser dispenser(agent, 3, kEvents);
    mine = drain(dispenser, GetParam());
    agent.finish(false);
  }
  int count = static_cast<int>(mine.size()), rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(counts.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) offsets[r] = std::exchange(total, total + counts[r]);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(total));
  MPI_Gatherv(mine.data(), count, MPI_UINT64_T, all.data(), counts.data(), offsets.data(), MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  std::vector<int> seen(kEvents, 0);
  for (auto ordinal : all) {
    ASSERT_LT(ordinal, kEvents);
    ++seen[ordinal];
  }
  for (std::uint64_t ordinal = 0; ordinal < kEvents; ++ordinal) ASSERT_EQ(seen[ordinal], 1) << "event " << ordinal;
}

INSTANTIATE_TEST_SUITE_P(Threads, MpiEventQueueTest, ::testing::Values(1u, 2u, 4u, 8u));

TEST(MpiAgentTest, ARankThatRaisesTheFlagStopsTheOthers) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::atomic<bool> stopped{false};
  {
    MpiJobWindow window(MPI_COMM_WORLD);
    MpiAgent agent(window, [&] { stopped = true; }, MpiAgent::Claims::None);
    if (rank == 0) {
      agent.finish(true);
    } else {
      while (!stopped) std::this_thread::yield();  // the test's own timeout ends a hang
      agent.finish(false);
    }
  }
  EXPECT_EQ(stopped.load(), rank != 0);
}

}  // namespace
}  // namespace lanes::node

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int const status = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
