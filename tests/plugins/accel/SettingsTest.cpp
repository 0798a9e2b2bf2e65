// Parsing --accel and --accel-strategy.

#include "accel/Settings.h"

#include <gtest/gtest.h>

#include "plugins/PluginTesting.h"

namespace lanes::accel {
namespace {

using mimicry::test::errorOf;
using mimicry::test::expectMentions;

TEST(AccelSettingsTest, ReadsBackendStrategyAndOptions) {
  auto const settings = Settings::parse("emulated:slots=2,queues=3,launch=1e-6", "waiting-pool:threads=3");
  EXPECT_EQ(settings.backend, Backend::Emulated);
  EXPECT_EQ(settings.emulated.kernelSlots, 2u);
  EXPECT_EQ(settings.maxQueues, 3u);
  EXPECT_EQ(settings.strategy, Strategy::WaitingPool);
  EXPECT_EQ(settings.waitingThreads, 3u);
  EXPECT_EQ(Settings::parse("none", "sync-single").strategy, Strategy::SyncSingle);
}

TEST(AccelSettingsTest, RejectsBadInput) {
  expectMentions(errorOf([] { Settings::parse("gpu", "sync-single"); }), {"unknown accelerator backend 'gpu'", "emulated"});
  expectMentions(errorOf([] { Settings::parse("emulated", "async"); }),
                 {"unknown accelerator strategy 'async'", "external-worker-d2h"});
  expectMentions(errorOf([] { Settings::parse("emulated:slots=0", "sync-single"); }), {"option 'slots'"});
  expectMentions(errorOf([] { Settings::parse("emulated:slot=2", "sync-single"); }), {"unknown option 'slot'"});
  expectMentions(errorOf([] { Settings::parse("none:queues=2", "sync-single"); }), {"unknown option 'queues'"});
  expectMentions(errorOf([] { Settings::parse("emulated", "sync-multi:threads=2"); }), {"unknown option 'threads'"});
  if (!cudaBuilt()) expectMentions(errorOf([] { Settings::parse("cuda", "sync-single"); }), {"'cuda' is not in this build"});
}

// Only parsing: a CUDA build may run where there is no GPU.
TEST(AccelSettingsTest, TakesCudaWhereBuilt) {
  if (!cudaBuilt()) GTEST_SKIP() << "no CUDA backend in this build";
  auto const settings = Settings::parse("cuda:queues=2", "external-worker");
  EXPECT_EQ(settings.backend, Backend::Cuda);
  EXPECT_EQ(settings.maxQueues, 2u);
  expectMentions(errorOf([] { Settings::parse("cuda:slots=2", "sync-single"); }), {"unknown option 'slots'"});
}

}  // namespace
}  // namespace lanes::accel
