// The tutorial's modules (examples/modules) run as a real job, so the code
// that core/README.md shows is compiled and exercised.

#include <gtest/gtest.h>

#include "examples/modules/TrackingExample.h"
#include "lanes/core/EventProcessor.h"

namespace lanes::examples {
namespace {

class TrackingExampleTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(TrackingExampleTest, ChainRunsInEveryLaneCount) {
  JobConfig config;
  config.source = PluginSpec::parse("synthetic:size.hits=4000,events=50");
  config.modules = {{"tracks", PluginSpec::parse("example-tracks:hits-per-track=10")},
                    {"vertices", PluginSpec::parse("example-vertices")},
                    {"histogram", PluginSpec::parse("example-histogram")}};
  config.outputs = {{"out", PluginSpec::parse("dummy:keep=vertices"), {}}};
  config.threads = 2;
  config.lanes = GetParam();
  EventProcessor processor(config);
  auto const summary = processor.run();
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 50u);
  EXPECT_EQ(lastJobEvents, 50u);
}

INSTANTIATE_TEST_SUITE_P(Lanes, TrackingExampleTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::examples
