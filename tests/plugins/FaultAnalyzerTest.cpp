// The `fault` module: throw, abort or hang at one event.

#include "mimicry/FaultAnalyzer.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/time.h>

#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

std::unique_ptr<Module> fault(std::string const& options) {
  return PluginRegistry::instance().makeModule("fault", "fault", optionsOf(options));
}

TEST(FaultAnalyzerTest, ThrowsAtItsEventOnly) {
  auto module = fault("at=3");
  auto& analyzer = dynamic_cast<global::Analyzer&>(*module);
  HandMadeEvent event({});
  analyzer.analyze(event.start(2));
  analyzer.analyze(event.start(4));
  expectMentions(errorOf([&] { analyzer.analyze(event.start(3)); }), {"fault injected at event 3"});
}

TEST(FaultAnalyzerTest, ConsumesWhatItIsTold) {
  auto module = fault("at=1,consumes=a,consumes=b");
  ASSERT_EQ(module->consumed().size(), 2u);
  EXPECT_EQ(module->consumed()[1].label, "b");
}

TEST(FaultAnalyzerTest, RejectsBadOptions) {
  expectMentions(errorOf([] { fault(""); }), {"plugin 'fault'", "option 'at'", "required"});
  expectMentions(errorOf([] { fault("at=0"); }), {"plugin 'fault'", "option 'at'", ">= 1"});
  expectMentions(errorOf([] { fault("at=x"); }), {"option 'at'", "'x'"});
  expectMentions(errorOf([] { fault("at=1,action=explode"); }), {"option 'action'", "throw|abort|hang"});
}

TEST(FaultAnalyzerTest, WaitGoesOnOnceItsFileExists) {
  expectMentions(errorOf([] { fault("at=1,action=wait"); }), {"option 'until'", "required"});
  auto const path = std::filesystem::temp_directory_path() / ("lanes-fault-go-" + std::to_string(::getpid()));
  std::ofstream(path) << "";
  auto module = fault("at=2,action=wait,until=" + path.string());
  auto& analyzer = dynamic_cast<global::Analyzer&>(*module);
  HandMadeEvent event({});
  analyzer.analyze(event.start(2));  // returns: the file is there
  std::filesystem::remove(path);
}

TEST(FaultAnalyzerDeathTest, AbortKillsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto module = fault("at=2,action=abort");
  auto& analyzer = dynamic_cast<global::Analyzer&>(*module);
  HandMadeEvent event({});
  analyzer.analyze(event.start(1));
  EXPECT_DEATH(analyzer.analyze(event.start(2)), "");
}

TEST(FaultAnalyzerDeathTest, HangNeverReturns) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto module = fault("at=2,action=hang");
  auto& analyzer = dynamic_cast<global::Analyzer&>(*module);
  HandMadeEvent event({});
  // The child hangs until an alarm ends it; returning would exit with 0 instead.
  auto hangThenExit = [&] {
    itimerval alarm{{0, 0}, {0, 200000}};
    setitimer(ITIMER_REAL, &alarm, nullptr);
    analyzer.analyze(event.start(2));
    std::exit(0);
  };
  EXPECT_EXIT(hangThenExit(), ::testing::KilledBySignal(SIGALRM), "");
}

class FaultAnalyzerJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(FaultAnalyzerJobTest, AThrowFailsTheJobNamingModuleAndEvent) {
  auto config = jobWith("synthetic:events=20,size.a=10", GetParam());
  config.modules = {{"boom", PluginSpec::parse("fault:at=5,consumes=a")}};
  auto summary = runJob(config);
  EXPECT_TRUE(summary.failed);
  expectMentions(summary.error, {"'boom'", "1:1:5", "fault injected at event 5"});
}

TEST_P(FaultAnalyzerJobTest, UnderSkipOnlyThatEventIsLost) {
  auto config = jobWith("synthetic:events=20,size.a=10", GetParam());
  config.modules = {{"boom", PluginSpec::parse("fault:at=5")}};
  config.onError = ErrorPolicy::Skip;
  auto summary = runJob(config);
  EXPECT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsSkipped, 1u);
  EXPECT_EQ(summary.eventsProcessed, 19u);
}

INSTANTIATE_TEST_SUITE_P(Threads, FaultAnalyzerJobTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::mimicry::test
