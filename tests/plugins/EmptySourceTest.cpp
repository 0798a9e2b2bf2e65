// The `empty` source: numbering, limits, replication, and in a job.

#include "mimicry/EmptySource.h"

#include <gtest/gtest.h>

#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

std::unique_ptr<Source> emptySource(std::string const& options) {
  return PluginRegistry::instance().makeSource("empty", optionsOf(options));
}

TEST(EmptySourceTest, YieldsNumberedEventsUpToTheLimit) {
  auto source = emptySource("events=3");
  EXPECT_TRUE(source->products().empty());
  SourceEvent event;
  for (std::uint64_t n = 1; n <= 3; ++n) {
    ASSERT_TRUE(source->next(event));
    EXPECT_EQ(event.id, (EventId{1, 1, n}));
  }
  EXPECT_FALSE(source->next(event));
}

TEST(EmptySourceTest, IsUnlimitedByDefault) {
  auto source = emptySource("");
  SourceEvent event;
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE(source->next(event));
  EXPECT_EQ(event.id.event, 10000u);
}

TEST(EmptySourceTest, ReplicasAreAddressedByOrdinal) {
  auto source = emptySource("events=5");
  auto replica = source->replicate();
  ASSERT_NE(replica, nullptr);
  SourceEvent event;
  ASSERT_TRUE(replica->at(4, event));
  EXPECT_EQ(event.id, (EventId{1, 1, 5}));
  ASSERT_TRUE(replica->at(0, event));
  EXPECT_EQ(event.id, (EventId{1, 1, 1}));
  EXPECT_FALSE(replica->at(5, event));
}

TEST(EmptySourceTest, HasNothingToRead) {
  auto source = emptySource("");
  ProductSlot slot;
  expectMentions(errorOf([&] { source->read(SourceEvent{}, 0, slot); }), {"'empty'", "no products"});
}

TEST(EmptySourceTest, RejectsBadOptions) {
  expectMentions(errorOf([] { emptySource("events=-1"); }), {"plugin 'empty'", "option 'events'"});
  expectMentions(errorOf([] { emptySource("events=many"); }), {"option 'events'", "'many'"});
  expectMentions(errorOf([] { emptySource("event=3"); }), {"unknown option 'event'"});
}

class EmptySourceJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(EmptySourceJobTest, TheSourceLimitEndsTheJob) {
  auto summary = runJob(jobWith("empty:events=37", GetParam()));
  EXPECT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 37u);
}

TEST_P(EmptySourceJobTest, TheJobLimitEndsAnUnlimitedSource) {
  auto config = jobWith("empty", GetParam());
  config.maxEvents = 25;
  auto summary = runJob(config);
  EXPECT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 25u);
}

INSTANTIATE_TEST_SUITE_P(Threads, EmptySourceJobTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::mimicry::test
