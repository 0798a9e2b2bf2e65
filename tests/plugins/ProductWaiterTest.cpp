// The `busy` and `sleep` per-product waiters.

#include "mimicry/ProductWaiter.h"

#include <gtest/gtest.h>

#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

std::unique_ptr<Module> waiter(std::string const& plugin, std::string const& options) {
  return PluginRegistry::instance().makeModule(plugin, plugin + "/a", optionsOf(options));
}

TEST(ProductWaiterTest, RegisteredAsPerProductWaiters) {
  for (char const* plugin : {"busy", "sleep"}) {
    EXPECT_EQ(PluginRegistry::instance().moduleInfo(plugin).role, PluginRole::PerProductWaiter) << plugin;
  }
}

TEST(ProductWaiterTest, ConsumesItsProductOfAnyType) {
  auto module = waiter("sleep", "product=a");
  EXPECT_EQ(module->kind(), ModuleKind::Analyzer);
  EXPECT_EQ(module->concurrency(), Concurrency::Global);
  ASSERT_EQ(module->consumed().size(), 1u);
  EXPECT_EQ(module->consumed().front().label, "a");
  EXPECT_TRUE(module->consumed().front().anyType);
}

// CPU time of one analyze() call on an event whose product "a" has `bytes`.
double cpuSecondsForProduct(Module& module, std::size_t bytes) {
  HandMadeEvent event({{"a", bytes}, {"b", 1}});
  event.connect(module);
  auto& analyzer = dynamic_cast<global::Analyzer&>(module);
  return cpuSecondsOf([&] { analyzer.analyze(event.start(1)); });
}

TEST(ProductWaiterTest, BusyBurnsScaleTimesBytesOfCpu) {
  auto module = waiter("busy", "product=a,scale=1e-5");
  EXPECT_GE(cpuSecondsForProduct(*module, 1000), 0.01);
}

TEST(ProductWaiterTest, ThePerProductScaleOverridesTheCommonOne) {
  auto module = waiter("busy", "product=a,scale=0,scale.a=1e-5,scale.b=0");
  EXPECT_GE(cpuSecondsForProduct(*module, 1000), 0.01);
}

TEST(ProductWaiterTest, SleepReturns) {
  auto module = waiter("sleep", "product=a,scale=1e-6");
  cpuSecondsForProduct(*module, 100);
}

TEST(ProductWaiterTest, RejectsBadOptions) {
  expectMentions(errorOf([] { waiter("busy", ""); }), {"plugin 'busy'", "option 'product'", "required"});
  expectMentions(errorOf([] { waiter("sleep", "product=a,scale=-1"); }), {"plugin 'sleep'", "option 'scale'"});
  expectMentions(errorOf([] { waiter("busy", "product=a,scale.a=-1"); }), {"plugin 'busy'", "option 'scale.a'"});
  expectMentions(errorOf([] { waiter("busy", "product=a,scale=fast"); }), {"option 'scale'", "'fast'"});
  expectMentions(errorOf([] { waiter("busy", "product=a,time=1"); }), {"unknown option 'time'"});
}

class ProductWaiterJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(ProductWaiterJobTest, OneWaiterPerSourceProductRunsInEveryEvent) {
  auto config = jobWith("synthetic:events=30,size.a=1000,size.b=2000,size.c=10", GetParam());
  config.waiters = {PluginSpec::parse("sleep:scale=1e-7,scale.c=0"), PluginSpec::parse("busy:products=a,scale=1e-8")};
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 30u);
  for (char const* label : {"sleep/a", "sleep/b", "sleep/c", "busy/a"}) {
    EXPECT_EQ(calls.count(label, Transition::Event), 30) << label;
  }
  EXPECT_EQ(calls.count("busy/b", Transition::Event), 0);
}

INSTANTIATE_TEST_SUITE_P(Threads, ProductWaiterJobTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::mimicry::test
