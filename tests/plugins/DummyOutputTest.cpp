// The `dummy` output: counting, productReady on request, keep patterns.

#include "mimicry/DummyOutput.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProductRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

std::unique_ptr<OutputModule> dummy(std::string const& options) {
  return PluginRegistry::instance().makeOutput("dummy", "out", optionsOf(options));
}

TEST(DummyOutputTest, CountsWritesAndReadyProducts) {
  auto output = dummy("ready=true");
  auto& counting = dynamic_cast<DummyOutput&>(*output);
  EXPECT_TRUE(counting.wantsProductReady());
  HandMadeEvent event({{"a", 1}});
  auto& started = event.start(1);
  counting.productReady(started, 0);
  counting.write(started);
  counting.write(started);
  EXPECT_EQ(counting.eventsWritten(), 2u);
  EXPECT_EQ(counting.productsReady(), 1u);
}

TEST(DummyOutputTest, CountsConcurrentCallsExactly) {
  // As in a job: the lanes write at once, each its events one after the
  // other; the products of one lane's event become ready on any thread.
  constexpr unsigned kLanes = 4;
  auto output = dummy("ready=true");
  auto& counting = dynamic_cast<DummyOutput&>(*output);
  ProductRegistry registry;
  counting.beginJob(JobContext{registry, kLanes, kLanes});
  std::vector<std::unique_ptr<HandMadeEvent>> events;
  for (unsigned lane = 0; lane < kLanes; ++lane) events.push_back(std::make_unique<HandMadeEvent>(std::vector<std::pair<std::string, std::size_t>>{{"a", 1}}, lane));
  std::vector<Event*> started;
  for (auto& event : events) started.push_back(&event->start(1));
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kLanes; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10000; ++i) {
        counting.write(*started[t]);
        counting.productReady(*started[0], 0);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counting.eventsWritten(), 40000u);
  EXPECT_EQ(counting.productsReady(), 40000u);
}

TEST(DummyOutputTest, DoesNotAskForReadyCallsByDefault) { EXPECT_FALSE(dummy("")->wantsProductReady()); }

TEST(DummyOutputTest, TakesItsConcurrencyClassAndWorkFromItsOptions) {
  EXPECT_EQ(dummy("")->concurrency(), Concurrency::Global);
  EXPECT_EQ(dummy("concurrency=one,time=0.001,work=sleep")->concurrency(), Concurrency::One);
  auto const limited = dummy("concurrency=limited,limit=3");
  EXPECT_EQ(limited->concurrency(), Concurrency::Limited);
  EXPECT_EQ(limited->concurrencyLimit(), 3u);
  EXPECT_EQ(dummy("work=sleep")->details(), R"({"work":"sleep"})");
  EXPECT_EQ(dummy("")->details(), R"({"work":"busy"})");
}

TEST(DummyOutputTest, RejectsBadOptions) {
  expectMentions(errorOf([] { dummy("ready=maybe"); }), {"option 'ready'", "'maybe'"});
  expectMentions(errorOf([] { dummy("file=out.root"); }), {"unknown option 'file'"});
  expectMentions(errorOf([] { dummy("time=-1"); }), {"option 'time'"});
  expectMentions(errorOf([] { dummy("work=nap"); }), {"option 'work'", "'nap'"});
  expectMentions(errorOf([] { dummy("limit=2"); }), {"limit", "needs concurrency=limited"});
}

TEST(DummyOutputTest, AJobRefusesItAsAStreamOutput) {
  auto config = jobWith("synthetic:events=5,size.a=4", 1);
  config.outputs.push_back({"out", PluginSpec::parse("dummy:concurrency=stream"), {}});
  expectMentions(errorOf([&] { runJob(config); }), {"output 'out' is a stream module"});
}

class DummyOutputJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(DummyOutputJobTest, KeepPatternsSelectTheReadyProducts) {
  auto config = jobWith("synthetic:events=25,size.Jet_pt=40,size.Jet_eta=40,size.Muon_pt=8,size.MET=4", GetParam());
  config.outputs.push_back({"jets", PluginSpec::parse("dummy:ready=true,keep=Jet_*,keep=MET"), {}});
  config.outputs.push_back({"all", PluginSpec::parse("dummy:ready=true"), {}});
  config.outputs.push_back({"quiet", PluginSpec::parse("dummy"), {}});
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 25u);
  EXPECT_EQ(calls.count("jets", Transition::ProductReady), 25 * 3);
  EXPECT_EQ(calls.count("all", Transition::ProductReady), 25 * 4);
  EXPECT_EQ(calls.count("quiet", Transition::ProductReady), 0);
  for (char const* output : {"jets", "all", "quiet"}) EXPECT_EQ(calls.count(output, Transition::Event), 25) << output;
}

TEST_P(DummyOutputJobTest, AOneOutputWritesEveryEvent) {
  auto config = jobWith("synthetic:events=40,size.a=4", GetParam());
  config.outputs.push_back({"serial", PluginSpec::parse("dummy:concurrency=one,time=0.0005"), {}});
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(calls.count("serial", Transition::Event), 40);
}

INSTANTIATE_TEST_SUITE_P(Threads, DummyOutputJobTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::mimicry::test
