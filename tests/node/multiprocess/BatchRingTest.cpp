// The shared writer's ring: batches shipped by any thread of any process
// arrive whole and once, a full ring holds its shippers back until the
// writer releases a slot, and a released slot's memory goes back.

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "lanes/core/Exception.h"
#include "lanes/node/BatchRing.h"

namespace lanes::node {
namespace {

// A batch that says who shipped it and is checkable byte by byte.
std::vector<unsigned char> batchOf(unsigned shipper, unsigned sequence) {
  std::vector<unsigned char> bytes(16 + (sequence * 97) % 3000);
  std::memcpy(bytes.data(), &shipper, sizeof shipper);
  std::memcpy(bytes.data() + 8, &sequence, sizeof sequence);
  for (std::size_t k = 16; k < bytes.size(); ++k) bytes[k] = static_cast<unsigned char>(shipper * 31 + sequence + k);
  return bytes;
}

std::pair<unsigned, unsigned> identify(BatchRing::Batch const& batch) {
  unsigned shipper = 0, sequence = 0;
  std::memcpy(&shipper, batch.bytes, sizeof shipper);
  std::memcpy(&sequence, static_cast<unsigned char const*>(batch.bytes) + 8, sizeof sequence);
  return {shipper, sequence};
}

// Takes what is ready, waiting in poll() until something is.
std::vector<BatchRing::Batch> awaitReady(BatchRing& ring) {
  pollfd fd{ring.readyReadFd(), POLLIN, 0};
  EXPECT_EQ(::poll(&fd, 1, -1), 1);
  return ring.takeReady();
}

TEST(BatchRing, ABatchArrivesWholeWithItsOutputAndSender) {
  BatchRing ring(2, 4096);
  EXPECT_TRUE(ring.takeReady().empty());
  auto const sent = batchOf(1, 5);
  ring.ship(3, sent.data(), sent.size());
  auto const batches = ring.takeReady();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].output, 3u);
  EXPECT_EQ(batches[0].sender, ::getpid());
  ASSERT_EQ(batches[0].size, sent.size());
  EXPECT_EQ(std::memcmp(batches[0].bytes, sent.data(), sent.size()), 0);
  ring.release(batches[0].slot);
}

TEST(BatchRing, ABatchLargerThanASlotIsAnErrorNamingTheLimit) {
  BatchRing ring(1, 4096);
  std::vector<unsigned char> large(ring.maxBatchBytes() + 1);
  try {
    ring.ship(0, large.data(), large.size());
    FAIL() << "shipped a batch larger than a slot";
  } catch (Exception const& error) {
    EXPECT_NE(std::string(error.what()).find(std::to_string(ring.maxBatchBytes()) + " bytes"), std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(ring.takeReady().empty());
}

TEST(BatchRing, AReleasedSlotGivesItsMemoryBack) {
  BatchRing ring(1, std::size_t{4} << 20);
  std::vector<unsigned char> batch(std::size_t{2} << 20, 7);
  ring.ship(0, batch.data(), batch.size());
  auto const allocated = [&] {
    struct stat status {};
    EXPECT_EQ(::fstat(ring.memoryFd(), &status), 0);
    return static_cast<std::size_t>(status.st_blocks) * 512;
  };
  EXPECT_GE(allocated(), batch.size());
  for (auto const& taken : ring.takeReady()) ring.release(taken.slot);
  EXPECT_LT(allocated(), std::size_t{1} << 20);
}

// Three processes of two threads each ship through two slots: most ships
// wait for the writer, and every batch must arrive once and intact.
TEST(BatchRing, ConcurrentShippersInSeveralProcessesDeliverEveryBatchOnce) {
  constexpr unsigned kProcesses = 3, kThreads = 2, kBatches = 200;
  BatchRing ring(2, 4096);
  std::vector<pid_t> children;
  for (unsigned p = 0; p < kProcesses; ++p) {
    pid_t const child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a failed assertion below leaves no shipper waiting forever
      std::vector<std::thread> threads;
      for (unsigned t = 0; t < kThreads; ++t) {
        threads.emplace_back([&ring, shipper = p * kThreads + t] {
          for (unsigned s = 0; s < kBatches; ++s) {
            auto const batch = batchOf(shipper, s);
            ring.ship(shipper % 2, batch.data(), batch.size());
          }
        });
      }
      for (auto& thread : threads) thread.join();
      ::_exit(0);
    }
    children.push_back(child);
  }
  std::map<unsigned, std::set<unsigned>> received;
  unsigned total = 0;
  while (total < kProcesses * kThreads * kBatches) {
    for (auto const& batch : awaitReady(ring)) {
      auto const [shipper, sequence] = identify(batch);
      auto const expected = batchOf(shipper, sequence);
      ASSERT_EQ(batch.size, expected.size());
      EXPECT_EQ(std::memcmp(batch.bytes, expected.data(), expected.size()), 0);
      EXPECT_EQ(batch.output, shipper % 2);
      EXPECT_TRUE(received[shipper].insert(sequence).second) << "batch " << sequence << " of " << shipper << " twice";
      ++total;
      ring.release(batch.slot);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_TRUE(ring.takeReady().empty());
  ASSERT_EQ(received.size(), kProcesses * kThreads);
  for (auto const& [shipper, sequences] : received) EXPECT_EQ(sequences.size(), kBatches) << shipper;
}

TEST(BatchRing, AWorkerStartedWithExecMapsTheSameRing) {
  BatchRing ring(2, 4096);
  BatchRing worker(BatchRing::Descriptors{::dup(ring.memoryFd()), ::dup(ring.readyWriteFd())});
  EXPECT_EQ(worker.maxBatchBytes(), ring.maxBatchBytes());
  auto const batch = batchOf(2, 9);
  worker.ship(1, batch.data(), batch.size());
  auto const taken = ring.takeReady();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(identify(taken[0]), std::make_pair(2u, 9u));
  ring.release(taken[0].slot);
}

}  // namespace
}  // namespace lanes::node
