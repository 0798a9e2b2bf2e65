// What the supervisor measures: over-use decisions from samples, process
// trees and CPU time from /proc, confinement of every thread of a tree.

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lanes/node/Pinning.h"
#include "lanes/node/SupervisorUsage.h"

namespace lanes::node::test {
namespace {

TEST(OveruseDetectorTest, ConfinesOnlyAfterTheGracePeriodOfContinuousOveruse) {
  OveruseDetector detector(1, 0.2, 1.0);
  EXPECT_FALSE(detector.overdue(0.5, 1.0));  // 2 cores for 0.5 s
  EXPECT_TRUE(detector.over());
  EXPECT_DOUBLE_EQ(detector.lastUsage(), 2.0);
  EXPECT_FALSE(detector.overdue(1.0, 2.0));  // over for 1.0 s: not longer than the grace
  EXPECT_TRUE(detector.overdue(1.5, 3.0));
  EXPECT_DOUBLE_EQ(detector.peakUsage(), 2.0);
}

TEST(OveruseDetectorTest, AnIntervalWithinTheToleranceRestartsTheGracePeriod) {
  OveruseDetector detector(2, 0.2, 0.5);
  EXPECT_FALSE(detector.overdue(0.5, 1.5));  // 3 cores
  EXPECT_FALSE(detector.overdue(1.0, 2.5));  // 2 cores: within
  EXPECT_FALSE(detector.over());
  EXPECT_FALSE(detector.overdue(1.5, 4.0));  // over again, from 1.0
  EXPECT_TRUE(detector.overdue(2.0, 5.5));
}

TEST(OveruseDetectorTest, ZeroGraceConfinesAtTheFirstOverSample) {
  OveruseDetector detector(1, 0.2, 0.0);
  EXPECT_FALSE(detector.overdue(1.0, 1.1));
  EXPECT_TRUE(detector.overdue(2.0, 2.4));
}

// A child that forks a grandchild; both wait for a signal.
pid_t startTwoGenerations() {
  pid_t const child = fork();
  if (child == 0) {
    if (fork() == 0) {
      pause();
      _exit(0);
    }
    pause();
    _exit(0);
  }
  return child;
}

TEST(ProcessTableTest, FindsAProcessTreeAndConfinesEveryThreadOfIt) {
  pid_t const child = startTwoGenerations();
  std::vector<pid_t> tree;
  for (int attempt = 0; attempt < 1000 && tree.size() < 2; ++attempt) tree = ProcessTable::scan().treeOf(child);
  ASSERT_EQ(tree.size(), 2u);
  EXPECT_EQ(tree[0], child);
  EXPECT_GE(ProcessTable::scan().cpuSeconds(tree), 0.0);

  CpuSet const one{affinityOf(0).front()};
  std::set<pid_t> bound;
  EXPECT_EQ(confineThreads(tree, one, bound), 2u);
  EXPECT_EQ(confineThreads(tree, one, bound), 0u);  // nothing new the second time
  EXPECT_EQ(affinityOf(tree[0]), one);
  EXPECT_EQ(affinityOf(tree[1]), one);

  kill(tree[1], SIGTERM);
  kill(child, SIGTERM);
  waitpid(child, nullptr, 0);
}

TEST(ProcessTableTest, AnUnknownProcessHasNoTree) { EXPECT_TRUE(ProcessTable::scan().treeOf(-5).empty()); }

}  // namespace
}  // namespace lanes::node::test
