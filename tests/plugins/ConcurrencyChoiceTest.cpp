// concurrency=global|stream|one|limited picks the typed base of the generic
// modules; the class is visible through the Module interface.

#include "mimicry/ConcurrencyChoice.h"

#include <gtest/gtest.h>

#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

struct Choice {
  char const* options;
  Concurrency concurrency;
  unsigned limit;
};

class ConcurrencyChoiceTest : public ::testing::TestWithParam<char const*> {};

TEST_P(ConcurrencyChoiceTest, PicksTheConcurrencyClass) {
  for (auto const& choice : {Choice{"", Concurrency::Global, 1}, Choice{"concurrency=global", Concurrency::Global, 1},
                             Choice{"concurrency=stream", Concurrency::Stream, 1},
                             Choice{"concurrency=one", Concurrency::One, 1},
                             Choice{"concurrency=limited,limit=3", Concurrency::Limited, 3}}) {
    auto module = PluginRegistry::instance().makeModule(GetParam(), "m", optionsOf(choice.options));
    EXPECT_EQ(module->concurrency(), choice.concurrency) << GetParam() << " " << choice.options;
    EXPECT_EQ(module->concurrencyLimit(), choice.limit) << GetParam() << " " << choice.options;
  }
}

TEST_P(ConcurrencyChoiceTest, RejectsBadChoices) {
  auto make = [&](char const* options) { PluginRegistry::instance().makeModule(GetParam(), "m", optionsOf(options)); };
  auto plugin = std::string("plugin '") + GetParam() + "'";
  expectMentions(errorOf([&] { make("concurrency=parallel"); }),
                 {plugin.c_str(), "option 'concurrency'", "global|stream|one|limited"});
  expectMentions(errorOf([&] { make("concurrency=limited"); }), {plugin.c_str(), "option 'limit'", "required"});
  expectMentions(errorOf([&] { make("concurrency=limited,limit=0"); }), {plugin.c_str(), "option 'limit'", ">= 1"});
  expectMentions(errorOf([&] { make("concurrency=stream,limit=2"); }), {"option 'limit'", "concurrency=limited"});
}

INSTANTIATE_TEST_SUITE_P(Kinds, ConcurrencyChoiceTest, ::testing::Values("producer", "filter", "analyzer"));

}  // namespace
}  // namespace lanes::mimicry::test
