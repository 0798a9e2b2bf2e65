// The `offload` external-work producer.

#include "mimicry/OffloadProducer.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

std::unique_ptr<Module> offload(std::string const& options) {
  return PluginRegistry::instance().makeModule("offload", "gpu", optionsOf(options));
}

struct Signal {
  std::thread::id thread;
  std::exception_ptr error;
};

// Runs acquire() for event `number` and waits for the completion's signal.
Signal acquireAndWait(Module& module, HandMadeEvent& event, std::uint64_t number) {
  std::promise<Signal> signalled;
  auto future = signalled.get_future();
  Completion completion([&signalled](std::exception_ptr error) {
    signalled.set_value({std::this_thread::get_id(), error});
  });
  dynamic_cast<global::ExternalProducer&>(module).acquire(event.start(number), std::move(completion));
  return future.get();
}

TEST(OffloadProducerTest, CompletesFromThePoolThenProduces) {
  auto module = offload("produces.hits=128,consumes=raw,time=1e-4,threads=1");
  EXPECT_TRUE(module->hasExternalWork());
  HandMadeEvent event({{"raw", 10}});
  event.addProducer(*module);
  event.connect(*module);
  auto signal = acquireAndWait(*module, event, 1);
  EXPECT_EQ(signal.error, nullptr);
  EXPECT_NE(signal.thread, std::this_thread::get_id());
  auto& started = event.start(1);
  dynamic_cast<global::ExternalProducer&>(*module).produce(started);
  EXPECT_EQ(started.getByLabel<SyntheticBytes>("hits").size, 128u);
}

TEST(OffloadProducerTest, FailsTheCompletionAtTheChosenEvent) {
  auto module = offload("fail-at=2");
  HandMadeEvent event({});
  EXPECT_EQ(acquireAndWait(*module, event, 1).error, nullptr);
  auto signal = acquireAndWait(*module, event, 2);
  ASSERT_NE(signal.error, nullptr);
  expectMentions(describe(signal.error), {"offload failure injected at event 1:1:2"});
}

TEST(OffloadProducerTest, RejectsBadOptions) {
  expectMentions(errorOf([] { offload("threads=0"); }), {"plugin 'offload'", "option 'threads'", ">= 1"});
  expectMentions(errorOf([] { offload("fail-at=0"); }), {"plugin 'offload'", "option 'fail-at'"});
  expectMentions(errorOf([] { offload("time=-1"); }), {"plugin 'offload'", "option 'time'"});
  expectMentions(errorOf([] { offload("produces.x=-1"); }), {"plugin 'offload'", "option 'produces.x'"});
  expectMentions(errorOf([] { offload("work=busy"); }), {"unknown option 'work'"});
}

class OffloadProducerJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(OffloadProducerJobTest, EveryEventGetsItsProducts) {
  auto config = jobWith("synthetic:events=40,size.raw=1000", GetParam());
  config.modules = {{"gpu", PluginSpec::parse("offload:consumes=raw,produces.tracks=256,time=1e-4,scale=1e-8")}};
  config.outputs.push_back({"out", PluginSpec::parse("dummy:ready=true,keep=tracks"), {}});
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 40u);
  EXPECT_EQ(calls.count("gpu", Transition::Acquire), 40);
  EXPECT_EQ(calls.count("out", Transition::ProductReady), 40);
}

TEST_P(OffloadProducerJobTest, AFailedCompletionFailsTheJobNamingModuleAndEvent) {
  auto config = jobWith("synthetic:events=40,size.raw=1000", GetParam());
  config.modules = {{"gpu", PluginSpec::parse("offload:produces.tracks=256,fail-at=7")}};
  config.outputs.push_back({"out", PluginSpec::parse("dummy:keep=tracks"), {}});
  auto summary = runJob(config);
  EXPECT_TRUE(summary.failed);
  expectMentions(summary.error, {"'gpu'", "offload failure injected at event 1:1:7"});
}

TEST_P(OffloadProducerJobTest, UnderSkipOnlyTheFailedEventIsLost) {
  auto config = jobWith("synthetic:events=40,size.raw=1000", GetParam());
  config.modules = {{"gpu", PluginSpec::parse("offload:produces.tracks=256,fail-at=7")}};
  config.outputs.push_back({"out", PluginSpec::parse("dummy:keep=tracks"), {}});
  config.onError = ErrorPolicy::Skip;
  auto summary = runJob(config);
  EXPECT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsSkipped, 1u);
  EXPECT_EQ(summary.eventsProcessed, 39u);
}

INSTANTIATE_TEST_SUITE_P(Threads, OffloadProducerJobTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::mimicry::test
