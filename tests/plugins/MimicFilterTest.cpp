// The generic `filter`: a reproducible accepted fraction.

#include "mimicry/MimicFilter.h"

#include <gtest/gtest.h>

#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

int acceptedAmong(std::uint64_t events, double fraction) {
  int accepted = 0;
  for (std::uint64_t n = 1; n <= events; ++n) accepted += acceptsEvent(n, fraction);
  return accepted;
}

TEST(MimicFilterTest, AcceptsAboutTheFraction) {
  EXPECT_EQ(acceptedAmong(1000, 0), 0);
  EXPECT_EQ(acceptedAmong(1000, 1), 1000);
  EXPECT_NEAR(acceptedAmong(1000, 0.3), 300, 10);
  EXPECT_NEAR(acceptedAmong(1000, 0.75), 750, 10);
}

TEST(MimicFilterTest, AHigherFractionKeepsEveryEventALowerOneAccepted) {
  for (std::uint64_t n = 1; n <= 1000; ++n) {
    if (acceptsEvent(n, 0.2)) {
      EXPECT_TRUE(acceptsEvent(n, 0.6)) << n;
    }
  }
}

TEST(MimicFilterTest, DecidesTheSameForTheSameEvent) {
  auto module = PluginRegistry::instance().makeModule("filter", "f", optionsOf("accept=0.5,concurrency=stream"));
  auto& filter = dynamic_cast<stream::Filter&>(*module);
  HandMadeEvent event({});
  for (std::uint64_t n = 1; n <= 100; ++n) {
    EXPECT_EQ(filter.filter(event.start(n)), acceptsEvent(n, 0.5)) << n;
    EXPECT_EQ(filter.filter(event.start(n)), acceptsEvent(n, 0.5)) << n;
  }
}

TEST(MimicFilterTest, RejectsBadOptions) {
  auto make = [](char const* options) { PluginRegistry::instance().makeModule("filter", "f", optionsOf(options)); };
  expectMentions(errorOf([&] { make("accept=1.5"); }), {"plugin 'filter'", "option 'accept'", "[0, 1]"});
  expectMentions(errorOf([&] { make("accept=-0.1"); }), {"plugin 'filter'", "option 'accept'"});
  expectMentions(errorOf([&] { make("produces.x=1"); }), {"unknown option 'produces.x'"});
}

class MimicFilterJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(MimicFilterJobTest, TheOutputWritesExactlyTheAcceptedEvents) {
  auto config = jobWith("synthetic:events=200,size.raw=10", GetParam());
  config.modules = {{"select", PluginSpec::parse("filter:accept=0.4,consumes=raw,work=sleep")}};
  config.paths = {{"selected", {"select"}}};
  config.outputs.push_back({"out", PluginSpec::parse("dummy"), {"selected"}});
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(calls.count("select", Transition::Event), 200);
  EXPECT_EQ(calls.count("out", Transition::Event), acceptedAmong(200, 0.4));
}

INSTANTIATE_TEST_SUITE_P(Threads, MimicFilterJobTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::mimicry::test
