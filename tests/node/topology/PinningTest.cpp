// Binding on this machine: the affinity calls, a job's threads pinned through
// EventProcessor::onThreadEntry, commands started confined.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <mutex>
#include <set>

#include "core/TestPlugins.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/Exception.h"
#include "lanes/node/Pinning.h"

namespace lanes::node::test {
namespace {

// Restores the calling thread's affinity when the test ends.
struct KeepAffinity {
  CpuSet const saved = affinityOf(0);
  ~KeepAffinity() { setAffinity(0, saved); }
};

class ThreadPinnerTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(ThreadPinnerTest, EveryThreadOfTheJobRunsOnItsOwnPu) {
  KeepAffinity keep;
  unsigned const threads = GetParam();
  CpuSet const pus = affinityOf(0);
  ThreadPinner pinner(pus);
  std::mutex mutex;
  std::map<pid_t, CpuSet> seen;  // thread -> its affinity after pinning
  lanes::test::Observations observations;
  auto config = lanes::test::job("count:events=40");
  config.threads = threads;
  EventProcessor processor(config, lanes::test::testRegistry(observations));
  processor.onThreadEntry([&] {
    pinner.pinCallingThread();
    std::lock_guard lock(mutex);
    seen[gettid()] = affinityOf(0);
  });
  EXPECT_FALSE(processor.run().failed);
  EXPECT_TRUE(pinner.firstError().empty()) << pinner.firstError();
  ASSERT_GE(seen.size(), 1u);
  EXPECT_LE(seen.size(), threads);
  EXPECT_EQ(pinner.threadsPinned(), seen.size());
  EXPECT_TRUE(seen.count(gettid())) << "the thread that calls run() works in the arena too";
  std::set<unsigned> used;
  for (auto const& [tid, affinity] : seen) {
    ASSERT_EQ(affinity.size(), 1u);
    EXPECT_TRUE(std::count(pus.begin(), pus.end(), affinity.front()));
    used.insert(affinity.front());
  }
  EXPECT_EQ(used.size(), std::min<std::size_t>(seen.size(), pus.size()));
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPinnerTest, ::testing::Values(1u, 2u, 4u));

TEST(ThreadPinnerTest, AnUnusablePuIsReportedNotThrown) {
  KeepAffinity keep;
  ThreadPinner pinner({CPU_SETSIZE - 1});
  pinner.pinCallingThread();
  EXPECT_FALSE(pinner.firstError().empty());
}

TEST(SpawnPinnedTest, TheCommandRunsConfinedAndItsStatusComesBack) {
  CpuSet const one{affinityOf(0).back()};
  auto const check = "test \"$(grep Cpus_allowed_list: /proc/self/status | cut -f2)\" = " + toString(one) + " && exit 3";
  pid_t const pid = spawnPinned({"sh", "-c", check}, one);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_EQ(exitCodeOf(status), 3);
}

TEST(SpawnPinnedTest, AMissingCommandIsAClearError) {
  try {
    spawnPinned({"/no/such/command", "x"}, {});
    FAIL() << "started a command that does not exist";
  } catch (Exception const& error) {
    EXPECT_EQ(error.message(), "cannot run '/no/such/command': No such file or directory");
  }
}

TEST(SetAffinityTest, AThreadThatDoesNotExistIsNotAnError) { EXPECT_FALSE(setAffinity(999999999, {0})); }

}  // namespace
}  // namespace lanes::node::test
