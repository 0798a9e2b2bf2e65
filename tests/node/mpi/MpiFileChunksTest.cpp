// --chunk file's distribution: which files a rank takes, and, under mpirun,
// ranks that claim files from the window's counter when asked, drained by
// several threads at once as lanes do: every file goes to one rank, which
// takes every event of it once.

#include <mpi.h>

#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "MpiEventQueue.h"
#include "MpiFileChunks.h"

namespace lanes::node {
namespace {

// Seven files, the second one empty.
std::vector<std::uint64_t> const kStarts{0, 5, 5, 17, 40, 41, 60, 100};
constexpr std::size_t kFiles = 7;

std::vector<std::size_t> filesOf(MpiDistribution distribution, unsigned rank, unsigned ranks) {
  auto next = filesOfRank(distribution, kFiles, rank, ranks, [] { return std::uint64_t{0}; });
  std::vector<std::size_t> files;
  while (auto file = next()) files.push_back(*file);
  return files;
}

TEST(MpiFileChunksTest, StaticSharesGiveEachRankItsOwnFiles) {
  EXPECT_EQ(filesOf(MpiDistribution::Block, 0, 3), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(filesOf(MpiDistribution::Block, 2, 3), (std::vector<std::size_t>{4, 5, 6}));
  EXPECT_EQ(filesOf(MpiDistribution::RoundRobin, 1, 3), (std::vector<std::size_t>{1, 4}));
  for (std::size_t file = 0; file < kFiles; ++file) {  // the files a rank counts are those it takes
    EXPECT_TRUE(countsFile(MpiDistribution::Block, file, kFiles, file < 2 ? 0 : file < 4 ? 1 : 2, 3)) << file;
    EXPECT_TRUE(countsFile(MpiDistribution::Queue, file, kFiles, file % 3, 3)) << file;
  }
}

TEST(MpiFileChunksTest, TheJobsLimitEndsTheFileItFallsIn) {
  FileChunkDispenser dispenser(kStarts, 20, filesOfRank(MpiDistribution::Block, kFiles, 1, 3, {}));
  std::vector<std::uint64_t> taken;
  while (auto ordinal = dispenser.next()) taken.push_back(*ordinal);
  ASSERT_EQ(taken.size(), 15u);  // file 2 whole (5..16), file 3 up to 19
  EXPECT_EQ(taken.front(), 5u);
  EXPECT_EQ(taken.back(), 19u);
  EXPECT_EQ(dispenser.filesTaken(), (std::vector<std::size_t>{2, 3}));
}

TEST(MpiFileChunksTest, RanksClaimingFilesWhenAskedTakeEveryFileOnceAndAllOfIt) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::uint64_t> mine;
  std::vector<std::size_t> files;
  {
    MpiJobWindow window(MPI_COMM_WORLD);
    MpiAgent agent(window, [] {}, MpiAgent::Claims::WhenAsked);
    FileChunkDispenser dispenser(kStarts, 0, filesOfRank(MpiDistribution::Queue, kFiles, rank, size,
                                                         [&agent] { return agent.takeChunk(); }));
    std::mutex mutex;
    std::vector<std::thread> lanes;
    for (int t = 0; t < 4; ++t) {
      lanes.emplace_back([&] {
        while (auto ordinal = dispenser.next()) {
          std::lock_guard lock(mutex);
          mine.push_back(*ordinal);
        }
      });
    }
    for (auto& lane : lanes) lane.join();
    files = dispenser.filesTaken();
    agent.finish(false);
  }
  // This rank took exactly the events of its files, each once.
  std::vector<int> seen(kStarts.back(), 0), expected(kStarts.back(), 0);
  for (auto ordinal : mine) ++seen.at(ordinal);
  for (auto file : files) {
    for (auto ordinal = kStarts[file]; ordinal < kStarts[file + 1]; ++ordinal) expected[ordinal] = 1;
  }
  EXPECT_EQ(seen, expected);
  // Every file went to one rank.
  std::vector<int> taken(kFiles, 0), everyone(kFiles, 0);
  for (auto file : files) ++taken.at(file);
  MPI_Allreduce(taken.data(), everyone.data(), static_cast<int>(kFiles), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(everyone, std::vector<int>(kFiles, 1));
}

}  // namespace
}  // namespace lanes::node
