// The `event-time` waiter and the time files it reads.

#include "mimicry/EventTimeWaiter.h"

#include <gtest/gtest.h>

#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

TEST(EventTimesTest, ReadsOneTimePerLineSkippingCommentsAndBlanks) {
  TemporaryFile file("# measured on node 7\n0.5\n\n  1e-3  # slow event\n2\r\n");
  auto times = EventTimes::load(file.path());
  ASSERT_EQ(times.size(), 3u);
  EXPECT_DOUBLE_EQ(times.at(0), 0.5);
  EXPECT_DOUBLE_EQ(times.at(1), 1e-3);
  EXPECT_DOUBLE_EQ(times.at(2), 2);
  EXPECT_DOUBLE_EQ(times.at(3), 0.5);
}

TEST(EventTimesTest, BadFilesNameTheFileAndLine) {
  TemporaryFile word("0.1\n# fine\nslow\n");
  expectMentions(errorOf([&] { EventTimes::load(word.path()); }), {word.path().c_str(), "line 3", "'slow'"});
  TemporaryFile negative("-0.1\n");
  expectMentions(errorOf([&] { EventTimes::load(negative.path()); }), {negative.path().c_str(), "line 1", "'-0.1'"});
  TemporaryFile trailing("0.1 0.2\n");
  expectMentions(errorOf([&] { EventTimes::load(trailing.path()); }), {"line 1", "'0.1 0.2'"});
  TemporaryFile empty("# nothing\n\n");
  expectMentions(errorOf([&] { EventTimes::load(empty.path()); }), {empty.path().c_str(), "no times"});
  expectMentions(errorOf([] { EventTimes::load("/nonexistent/times.txt"); }), {"'/nonexistent/times.txt'", "cannot open"});
}

std::unique_ptr<Module> eventTime(std::string const& options) {
  return PluginRegistry::instance().makeModule("event-time", "event-time", optionsOf(options));
}

TEST(EventTimeWaiterTest, RegisteredAsAWholeEventWaiter) {
  EXPECT_EQ(PluginRegistry::instance().moduleInfo("event-time").role, PluginRole::Waiter);
}

TEST(EventTimeWaiterTest, EventNumberNCostsTimeNMinusOneTimesScale) {
  TemporaryFile file("0\n0.005\n");
  auto module = eventTime("file=" + file.path() + ",scale=2");
  auto& analyzer = dynamic_cast<global::Analyzer&>(*module);
  HandMadeEvent event({});
  EXPECT_GE(cpuSecondsOf([&] { analyzer.analyze(event.start(2)); }), 0.01);
  EXPECT_GE(cpuSecondsOf([&] { analyzer.analyze(event.start(4)); }), 0.01);  // cycled
}

TEST(EventTimeWaiterTest, RejectsBadOptionsAndFiles) {
  expectMentions(errorOf([] { eventTime(""); }), {"plugin 'event-time'", "option 'file'", "required"});
  TemporaryFile bad("0.1\nx\n");
  expectMentions(errorOf([&] { eventTime("file=" + bad.path()); }),
                 {"plugin 'event-time'", "option 'file'", bad.path().c_str(), "line 2"});
  TemporaryFile good("0\n");
  expectMentions(errorOf([&] { eventTime("file=" + good.path() + ",mode=idle"); }), {"option 'mode'", "busy|sleep"});
  expectMentions(errorOf([&] { eventTime("file=" + good.path() + ",scale=-2"); }), {"option 'scale'"});
}

class EventTimeWaiterJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(EventTimeWaiterJobTest, RunsOncePerEvent) {
  TemporaryFile file("0\n1e-4\n0\n");
  auto config = jobWith("empty:events=20", GetParam());
  config.waiters = {PluginSpec::parse("event-time:mode=sleep,file=" + file.path())};
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(calls.count("event-time", Transition::Event), 20);
}

INSTANTIATE_TEST_SUITE_P(Threads, EventTimeWaiterJobTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::mimicry::test
