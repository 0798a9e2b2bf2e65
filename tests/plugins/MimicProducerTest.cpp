// The generic `producer`.

#include "mimicry/MimicProducer.h"

#include <gtest/gtest.h>

#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

std::unique_ptr<Module> producer(std::string const& options) {
  return PluginRegistry::instance().makeModule("producer", "p", optionsOf(options));
}

TEST(MimicProducerTest, PutsSyntheticProductsOfTheGivenSizes) {
  auto module = producer("produces.tracks=300,produces.vertices=20,consumes=hits");
  EXPECT_EQ(module->kind(), ModuleKind::Producer);
  ASSERT_EQ(module->produced().size(), 2u);
  ASSERT_EQ(module->consumed().size(), 1u);
  EXPECT_TRUE(module->consumed().front().anyType);
  HandMadeEvent event({{"hits", 10}});
  event.addProducer(*module);
  event.connect(*module);
  auto& started = event.start(1);
  dynamic_cast<global::Producer&>(*module).produce(started);
  EXPECT_EQ(started.getByLabel<SyntheticBytes>("tracks").size, 300u);
  EXPECT_EQ(started.size(*started.registry().find("tracks")), 300u);
  EXPECT_EQ(started.size(*started.registry().find("vertices")), 20u);
}

TEST(MimicProducerTest, BusyWorkCostsTimePlusScaleTimesConsumedBytes) {
  auto module = producer("consumes=hits,consumes=tracks,time=0.002,scale=1e-5,concurrency=one");
  HandMadeEvent event({{"hits", 400}, {"tracks", 400}});
  event.connect(*module);
  auto& serial = dynamic_cast<lanes::one::Producer&>(*module);
  EXPECT_GE(cpuSecondsOf([&] { serial.produce(event.start(1)); }), 0.01);
}

TEST(MimicProducerTest, RejectsBadOptions) {
  expectMentions(errorOf([] { producer("produces.x=big"); }), {"plugin 'producer'", "option 'produces.x'", "'big'"});
  expectMentions(errorOf([] { producer("time=-1"); }), {"plugin 'producer'", "option 'time'"});
  expectMentions(errorOf([] { producer("work=spin"); }), {"plugin 'producer'", "option 'work'", "busy|sleep"});
  expectMentions(errorOf([] { producer("accept=0.5"); }), {"unknown option 'accept'"});
}

class MimicProducerJobTest : public ::testing::TestWithParam<std::tuple<unsigned, char const*>> {};

TEST_P(MimicProducerJobTest, ProducesInEveryEventInEveryConcurrencyClass) {
  auto [threads, concurrency] = GetParam();
  auto config = jobWith("synthetic:events=40,size.raw=500", threads);
  config.modules = {{"reco", PluginSpec::parse(std::string("producer:consumes=raw,produces.tracks=64,produces.jets=32,"
                                                           "work=sleep,time=1e-5,") + concurrency)}};
  config.outputs.push_back({"out", PluginSpec::parse("dummy:ready=true,keep=tracks,keep=jets"), {}});
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 40u);
  EXPECT_EQ(calls.count("reco", Transition::Event), 40);
  EXPECT_EQ(calls.count("out", Transition::ProductReady), 80);
}

INSTANTIATE_TEST_SUITE_P(ThreadsAndClasses, MimicProducerJobTest,
                         ::testing::Combine(::testing::Values(1u, 2u, 4u),
                                            ::testing::Values("concurrency=global", "concurrency=stream",
                                                              "concurrency=one", "concurrency=limited,limit=2")));

}  // namespace
}  // namespace lanes::mimicry::test
