// The generic `analyzer`.

#include "mimicry/MimicAnalyzer.h"

#include <gtest/gtest.h>

#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

std::unique_ptr<Module> analyzer(std::string const& options) {
  return PluginRegistry::instance().makeModule("analyzer", "a", optionsOf(options));
}

TEST(MimicAnalyzerTest, BusyWorkCostsTimePlusScaleTimesConsumedBytes) {
  auto module = analyzer("consumes=jets,time=0.005,scale=1e-5,concurrency=limited,limit=2");
  EXPECT_EQ(module->kind(), ModuleKind::Analyzer);
  HandMadeEvent event({{"jets", 500}});
  event.connect(*module);
  auto& shared = dynamic_cast<lanes::limited::Analyzer&>(*module);
  EXPECT_GE(cpuSecondsOf([&] { shared.analyze(event.start(1)); }), 0.01);
}

TEST(MimicAnalyzerTest, RejectsBadOptions) {
  expectMentions(errorOf([] { analyzer("scale=-1e-9"); }), {"plugin 'analyzer'", "option 'scale'"});
  expectMentions(errorOf([] { analyzer("produces.x=1"); }), {"unknown option 'produces.x'"});
}

TEST(MimicAnalyzerTest, AConsumedProductMustExistInTheJob) {
  auto config = jobWith("synthetic:events=3,size.raw=10");
  config.modules = {{"ana", PluginSpec::parse("analyzer:consumes=missing")}};
  expectMentions(errorOf([&] { runJob(config); }), {"'ana'", "'missing'"});
}

class MimicAnalyzerJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(MimicAnalyzerJobTest, RunsOncePerEvent) {
  auto config = jobWith("synthetic:events=30,size.raw=10,size.jets=20", GetParam());
  config.modules = {{"ana", PluginSpec::parse("analyzer:consumes=raw,consumes=jets,work=sleep,time=1e-5")}};
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(calls.count("ana", Transition::Event), 30);
}

INSTANTIATE_TEST_SUITE_P(Threads, MimicAnalyzerJobTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::mimicry::test
