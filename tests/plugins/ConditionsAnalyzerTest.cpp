// The `conditions` module: read-only state built at construction.

#include "mimicry/ConditionsAnalyzer.h"

#include <gtest/gtest.h>

#include "lanes/core/PluginRegistry.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

std::unique_ptr<Module> conditions(std::string const& options) {
  return PluginRegistry::instance().makeModule("conditions", "conditions", optionsOf(options));
}

TEST(ConditionsAnalyzerTest, AnEventReadsTheSameValuesEveryTime) {
  auto module = conditions("bytes=65536,reads=10");
  auto const& analyzer = dynamic_cast<ConditionsAnalyzer const&>(*module);
  EXPECT_EQ(analyzer.lookup(7), analyzer.lookup(7));
  EXPECT_NE(analyzer.lookup(7), analyzer.lookup(8));
  HandMadeEvent event({});
  analyzer.analyze(event.start(7));  // reads, never throws
}

TEST(ConditionsAnalyzerTest, TwoModulesOfOneSizeHoldTheSameState) {
  auto a = conditions("bytes=4096");
  auto b = conditions("bytes=4096");
  EXPECT_EQ(dynamic_cast<ConditionsAnalyzer const&>(*a).lookup(3), dynamic_cast<ConditionsAnalyzer const&>(*b).lookup(3));
}

TEST(ConditionsAnalyzerTest, RejectsBadOptions) {
  expectMentions(errorOf([] { conditions(""); }), {"conditions", "bytes"});
  expectMentions(errorOf([] { conditions("bytes=4"); }), {"bytes", "at least 8"});
  expectMentions(errorOf([] { conditions("bytes=64,reads=0"); }), {"reads"});
}

}  // namespace
}  // namespace lanes::mimicry::test
