// burnCpu costs the calling thread's CPU time (a property measured with the
// thread CPU clock, not the wall clock).

#include "mimicry/BusyWork.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "mimicry/WorkMode.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

TEST(BusyWorkTest, BurnsAtLeastTheRequestedThreadCpuTime) {
  EXPECT_GE(cpuSecondsOf([] { burnCpu(0.01); }), 0.01);
}

TEST(BusyWorkTest, EachThreadBurnsItsOwnCpuTime) {
  std::vector<double> spent(2);
  std::vector<std::thread> threads;
  for (auto& seconds : spent) threads.emplace_back([&seconds] { seconds = cpuSecondsOf([] { burnCpu(0.01); }); });
  for (auto& thread : threads) thread.join();
  for (double seconds : spent) EXPECT_GE(seconds, 0.01);
}

TEST(BusyWorkTest, ShortBurstsCostAboutWhatTheyAsk) {
  // 20000 bursts of 0.1 µs ask for 2 ms; watching the clock for each would
  // cost ~60 ms. The bounds are loose: the step rate is measured once.
  double const spent = cpuSecondsOf([] {
    for (int i = 0; i < 20000; ++i) burnCpu(1e-7);
  });
  EXPECT_GE(spent, 0.001);
  EXPECT_LE(spent, 0.02);
}

TEST(BusyWorkTest, NothingToBurnReturns) {
  burnCpu(0);
  burnCpu(-1);
}

TEST(WorkModeTest, BusySpendsCpuTime) { EXPECT_GE(cpuSecondsOf([] { spend(WorkMode::Busy, 0.005); }), 0.005); }

TEST(WorkModeTest, ReadsTheModeOption) {
  auto raw = optionsOf("work=sleep,mode=busy,bad=fast");
  PluginOptions options(raw, "demo");
  EXPECT_EQ(readWorkMode(options, "work"), WorkMode::Sleep);
  EXPECT_EQ(readWorkMode(options, "mode"), WorkMode::Busy);
  EXPECT_EQ(readWorkMode(options, "absent"), WorkMode::Busy);
  expectMentions(errorOf([&] { readWorkMode(options, "bad"); }), {"plugin 'demo'", "option 'bad'", "busy|sleep", "'fast'"});
}

}  // namespace
}  // namespace lanes::mimicry::test
