// The shared writer's channel over MPI (`mpirun -np 3 lanes_mpi_tests`):
// batches shipped by several threads of every rank reach rank 0's writer
// exactly once and, from one thread, in order; and a writer that is behind
// holds the senders up (a bounded number of batches queued and in flight)
// instead of letting them pile up.

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "MpiBatchChannel.h"
#include "MpiEventQueue.h"

namespace lanes::node {
namespace {

int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// A batch's bytes say who shipped it: rank, thread and sequence number,
// followed by `size` filler bytes (some batches larger than an eager MPI
// message, some smaller).
struct Stamp {
  std::uint32_t rank, thread, sequence;
};

std::vector<char> batchOf(Stamp stamp, std::size_t size) {
  std::vector<char> bytes(sizeof stamp + size, static_cast<char>(stamp.sequence));
  std::memcpy(bytes.data(), &stamp, sizeof stamp);
  return bytes;
}

Stamp stampOf(void const* bytes) {
  Stamp stamp{};
  std::memcpy(&stamp, bytes, sizeof stamp);
  return stamp;
}

// Polls `done` (generous: the machine is shared); false if it never held.
template <typename Done>
bool pollUntil(Done done) {
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// Rank 0's end: a writer with its MPI thread (an MpiAgent, as in a job).
// The others': a sender.
struct Channel {
  explicit Channel(unsigned maxQueued, MpiBatchWriter::Merge merge, std::function<void()> onStop = [] {}) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    window = std::make_unique<MpiJobWindow>(MPI_COMM_WORLD);
    if (worldRank() == 0) {
      writer = std::make_unique<MpiBatchWriter>(comm, maxQueued, std::move(merge), [] {});
    } else {
      sender = std::make_unique<MpiBatchSender>(comm, 2);
    }
    MpiTraffic* traffic = writer ? static_cast<MpiTraffic*>(writer.get()) : sender.get();
    agent = std::make_unique<MpiAgent>(*window, std::move(onStop), MpiAgent::Claims::None, traffic);
  }
  ~Channel() {
    agent.reset();
    window.reset();
    writer.reset();
    sender.reset();
    MPI_Comm_free(&comm);
  }
  BatchSink& sink() { return writer ? static_cast<BatchSink&>(*writer) : *sender; }
  // After the shipping: the agent ends, and the main thread completes the channel.
  void finish(bool raiseStop = false) {
    agent->finish(raiseStop);
    if (writer) writer->finish();
    else sender->finish();
  }

  MPI_Comm comm = MPI_COMM_NULL;
  std::unique_ptr<MpiJobWindow> window;
  std::unique_ptr<MpiBatchWriter> writer;
  std::unique_ptr<MpiBatchSender> sender;
  std::unique_ptr<MpiAgent> agent;
};

TEST(MpiBatchChannelTest, EveryBatchOfEveryThreadOfEveryRankIsMergedOnceAndInOrder) {
  constexpr unsigned kThreads = 4, kBatches = 60;
  std::vector<Stamp> merged;  // the writer's thread's alone until finish() joins it
  std::vector<unsigned> outputs;
  Channel channel(6, [&](unsigned output, void const* bytes, std::size_t size) {
    merged.push_back(stampOf(bytes));
    outputs.push_back(output);
    auto const stamp = stampOf(bytes);
    ASSERT_EQ(size, sizeof(Stamp) + (stamp.sequence % 3 == 0 ? 200'000 : 100));
  });
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (std::uint32_t s = 0; s < kBatches; ++s) {
        auto const bytes = batchOf({static_cast<std::uint32_t>(worldRank()), t, s}, s % 3 == 0 ? 200'000 : 100);
        channel.sink().ship(t % 2, bytes.data(), bytes.size());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  channel.finish();
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (worldRank() != 0) {
    EXPECT_EQ(channel.sender->shipped().batches, kThreads * kBatches);
    return;
  }
  ASSERT_EQ(merged.size(), static_cast<std::size_t>(ranks) * kThreads * kBatches);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> next;  // (rank, thread) -> its next sequence number
  for (std::size_t k = 0; k < merged.size(); ++k) {
    auto const& stamp = merged[k];
    auto& expected = next[std::make_pair(stamp.rank, stamp.thread)];
    ASSERT_EQ(stamp.sequence, expected++) << "rank " << stamp.rank << " thread " << stamp.thread;
    ASSERT_EQ(outputs[k], stamp.thread % 2);
  }
  auto const written = channel.writer->written();
  EXPECT_TRUE(written.error.empty()) << written.error;
  EXPECT_LE(written.mostQueued, 6u);
  for (int r = 0; r < ranks; ++r) EXPECT_EQ(written.batches[static_cast<std::size_t>(r)], kThreads * kBatches);
}

// Rank 0's writer stops at its first batch until rank 1 raises the stop
// flag; rank 1 ships meanwhile. Then the writer holds one batch, its queue
// two, and rank 1 two more in flight: exactly five ship() calls return, and
// the sixth waits, until the writer goes on.
TEST(MpiBatchChannelTest, AWriterThatIsBehindHoldsTheSendersUp) {
  constexpr unsigned kQueued = 2, kInFlight = 2, kBatches = 20;
  std::atomic<bool> gateOpen{false};
  std::vector<std::uint32_t> merged;
  Channel channel(
      kQueued,
      [&](unsigned, void const* bytes, std::size_t) {
        while (!gateOpen) std::this_thread::yield();  // the test's own timeout ends a hang
        merged.push_back(stampOf(bytes).sequence);
      },
      [&] { gateOpen = true; });
  int const rank = worldRank();
  if (rank == 1) {
    std::atomic<unsigned> returned{0};
    std::thread shipper([&] {
      for (std::uint32_t s = 0; s < kBatches; ++s) {
        auto const bytes = batchOf({1, 0, s}, 100'000);
        channel.sink().ship(0, bytes.data(), bytes.size());
        ++returned;
      }
    });
    ASSERT_TRUE(pollUntil([&] { return returned >= 1 + kQueued + kInFlight; }));
    // Whatever came of the wait, the writer has not gone on: no more can have returned.
    EXPECT_EQ(returned.load(), 1 + kQueued + kInFlight);
    EXPECT_GE(channel.sender->shipped().waits, 1u);
    channel.agent->finish(true);  // opens rank 0's gate; this thread is the MPI thread now
    EXPECT_TRUE(pollUntil([&] {
      channel.sender->progress();
      return returned == kBatches;
    }));
    shipper.join();
    channel.sender->finish();
    return;
  }
  if (rank == 0) {
    ASSERT_TRUE(pollUntil([&] { return gateOpen.load(); }));
  }
  channel.finish();
  if (rank != 0) return;
  ASSERT_EQ(merged.size(), kBatches);
  for (std::uint32_t s = 0; s < kBatches; ++s) EXPECT_EQ(merged[s], s);
  EXPECT_LE(channel.writer->written().mostQueued, kQueued);
}

}  // namespace
}  // namespace lanes::node
