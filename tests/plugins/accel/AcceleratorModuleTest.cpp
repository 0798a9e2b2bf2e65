// The `accel` module in real jobs: every strategy gives the CPU
// implementation's products, device faults stop the job naming module and
// event, and the device's limits hold.

#include "accel/AcceleratorModule.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <tuple>

#include "accel/EmulatedDevice.h"
#include "lanes/core/EventProcessor.h"
#include "plugins/PluginTesting.h"

namespace lanes::accel {
namespace {

using mimicry::test::expectMentions;

constexpr Strategy kStrategies[] = {Strategy::SyncSingle, Strategy::SyncMulti, Strategy::ExternalWorker,
                                    Strategy::ExternalWorkerD2H, Strategy::WaitingPool};

Settings onDevice(Strategy strategy) {
  Settings settings;
  settings.backend = Backend::Emulated;
  settings.emulated.launchOverheadS = 0;
  settings.strategy = strategy;
  return settings;
}

struct Outcome {
  RunSummary summary;
  nlohmann::json details;  // by module label
};

// A chain with a branch, as in the hlt-like menu, the two leaves copied to the host:
//   raw ─► unpack ─► clusters ─┬─► tracks ═►
//   calo ──────────────────────┴─► energy ═►
Outcome runChain(Settings const& settings, unsigned threads, unsigned lanes, std::string const& faultyClusters = "") {
  setSettings(settings);
  auto config = mimicry::test::jobWith("synthetic:events=24,size.raw=1000,size.calo=500", threads);
  config.lanes = lanes;
  auto accel = [](std::string text) { return PluginSpec::parse("accel:" + text); };
  config.modules = {
      {"unpack", accel("consumes=raw,produces.digis=800,time=2e-5")},
      {"clusters", accel("consumes=digis,produces.clusters=400,time=2e-5" + faultyClusters)},
      {"tracks", accel("consumes=clusters,produces.tracks=100,time=2e-5,to-host=true")},
      {"energy", accel("consumes=clusters,consumes=calo,produces.energy=50,time=1e-5,to-host=true")},
  };
  config.outputs.push_back({"out", PluginSpec::parse("dummy:keep=tracks,keep=energy"), {}});
  EventProcessor processor(std::move(config));
  Outcome outcome{processor.run(), {}};
  auto const details = processor.moduleDetails();
  for (std::size_t i = 0; i < details.size(); ++i) {
    if (!details[i].empty()) outcome.details[processor.info().modules[i].label] = nlohmann::json::parse(details[i]);
  }
  setSettings(Settings{});
  return outcome;
}

nlohmann::json const& cpuResults() {
  static auto const outcome = runChain(Settings{}, 2, 2);
  return outcome.details;
}

class AccelModuleStrategyTest : public ::testing::TestWithParam<std::tuple<Strategy, unsigned>> {};

TEST_P(AccelModuleStrategyTest, GivesTheProductsOfTheCpuImplementation) {
  auto const [strategy, threads] = GetParam();
  auto const outcome = runChain(onDevice(strategy), threads, 2 * threads);
  ASSERT_FALSE(outcome.summary.failed) << outcome.summary.error;
  EXPECT_EQ(outcome.summary.eventsProcessed, 24u);
  for (char const* leaf : {"tracks", "energy"}) {
    EXPECT_EQ(outcome.details[leaf]["strategy"], toString(strategy));
    EXPECT_EQ(outcome.details[leaf]["results"], 24);
    EXPECT_EQ(outcome.details[leaf]["result_sum"], cpuResults()[leaf]["result_sum"]) << leaf;
  }
}

TEST_P(AccelModuleStrategyTest, ADeviceFaultStopsTheJobNamingModuleAndEvent) {
  auto const [strategy, threads] = GetParam();
  auto const outcome = runChain(onDevice(strategy), threads, 2 * threads, ",fail-at=7");
  ASSERT_TRUE(outcome.summary.failed);
  expectMentions(outcome.summary.error, {"device fault injected in the kernel of module 'clusters' at event 1:1:7"});
}

std::string nameOf(::testing::TestParamInfo<std::tuple<Strategy, unsigned>> const& info) {
  std::string name = toString(std::get<0>(info.param));
  for (auto& c : name) c = c == '-' ? '_' : c;
  return name + "_" + std::to_string(std::get<1>(info.param)) + "_threads";
}

INSTANTIATE_TEST_SUITE_P(AccelEveryStrategy, AccelModuleStrategyTest,
                         ::testing::Combine(::testing::ValuesIn(kStrategies), ::testing::Values(1u, 2u)), nameOf);

TEST(AccelModuleTest, TheCpuImplementationReportsEveryResult) {
  EXPECT_EQ(cpuResults()["tracks"]["backend"], "none");
  EXPECT_EQ(cpuResults()["tracks"]["results"], 24);
  EXPECT_EQ(cpuResults()["clusters"]["results"], 24);  // on the CPU every result is a host product
  EXPECT_NE(cpuResults()["tracks"]["result_sum"], cpuResults()["energy"]["result_sum"]);
}

TEST(AccelModuleTest, MoreLanesThanQueuesShareThem) {
  for (auto strategy : {Strategy::SyncMulti, Strategy::ExternalWorker, Strategy::WaitingPool}) {
    auto settings = onDevice(strategy);
    settings.maxQueues = 2;
    auto const outcome = runChain(settings, 2, 8);
    ASSERT_FALSE(outcome.summary.failed) << outcome.summary.error;
    EXPECT_EQ(outcome.details["tracks"]["result_sum"], cpuResults()["tracks"]["result_sum"]) << toString(strategy);
    EXPECT_EQ(outcome.details["energy"]["result_sum"], cpuResults()["energy"]["result_sum"]) << toString(strategy);
  }
}

TEST(AccelModuleTest, TheJobNeverExceedsTheKernelSlots) {
  auto settings = onDevice(Strategy::ExternalWorker);
  settings.emulated.kernelSlots = 2;
  setSettings(settings);
  auto const accelerator = Accelerator::shared();  // the job's modules share it
  auto const outcome = runChain(settings, 2, 8);
  ASSERT_FALSE(outcome.summary.failed) << outcome.summary.error;
  auto const statistics = dynamic_cast<EmulatedDevice&>(accelerator->device()).statistics();
  EXPECT_EQ(statistics.kernels, 4u * 24u);
  EXPECT_LE(statistics.maxConcurrentKernels, 2u);
}

TEST(AccelModuleTest, RejectsBadOptions) {
  auto make = [](char const* options) {
    return PluginRegistry::instance().makeModule("accel", "a", mimicry::test::optionsOf(options));
  };
  expectMentions(mimicry::test::errorOf([&] { make("consumes=x"); }), {"plugin 'accel'", "produces"});
  expectMentions(mimicry::test::errorOf([&] { make("produces.a=1,produces.b=2"); }), {"plugin 'accel'", "produces"});
  expectMentions(mimicry::test::errorOf([&] { make("produces.a=1,speedup=0"); }), {"option 'speedup'"});
  expectMentions(mimicry::test::errorOf([&] { make("produces.a=1,fail-at=0"); }), {"option 'fail-at'"});
}

}  // namespace
}  // namespace lanes::accel
