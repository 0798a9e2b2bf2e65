// Checked option getters: each bad value names the plugin and the option.

#include "lanes/core/PluginOptions.h"

#include <gtest/gtest.h>

#include "plugins/PluginTesting.h"

namespace lanes::test {
using mimicry::test::errorOf;
using mimicry::test::expectMentions;
using mimicry::test::optionsOf;
namespace {

TEST(PluginOptionsTest, ReadsValidValuesAndFallbacks) {
  auto raw = optionsOf("name=x,time=0.5,share=0.25,n=3,mode=b,size.a=10,size.b=0");
  PluginOptions options(raw, "demo");
  EXPECT_EQ(options.required("name"), "x");
  EXPECT_DOUBLE_EQ(options.nonNegative("time", 1), 0.5);
  EXPECT_DOUBLE_EQ(options.nonNegative("absent", 1), 1);
  EXPECT_DOUBLE_EQ(options.fraction("share", 1), 0.25);
  EXPECT_EQ(options.count("n", 0), 3u);
  EXPECT_EQ(options.positive("absent", 2), 2u);
  EXPECT_EQ(options.choice("mode", "a", {"a", "b"}), "b");
  auto sizes = options.sizes("size.");
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes[0], (std::pair<std::string, std::size_t>{"a", 10}));
  EXPECT_EQ(sizes[1], (std::pair<std::string, std::size_t>{"b", 0}));
  EXPECT_NO_THROW(raw.requireAllUsed());
}

TEST(PluginOptionsTest, BadValuesNameThePluginAndTheOption) {
  auto raw = optionsOf("time=-1,share=2,n=-3,k=0,mode=c,size.a=-5,size.b=12x,empty=");
  PluginOptions options(raw, "demo");
  expectMentions(errorOf([&] { options.required("missing"); }), {"plugin 'demo'", "option 'missing'", "required"});
  EXPECT_EQ(errorOf([&] { options.required("empty"); }), "plugin 'demo': the value of 'empty' is empty");
  expectMentions(errorOf([&] { options.nonNegative("time", 0); }), {"plugin 'demo'", "option 'time'", "-1"});
  expectMentions(errorOf([&] { options.fraction("share", 1); }), {"option 'share'", "[0, 1]"});
  expectMentions(errorOf([&] { options.count("n", 0); }), {"option 'n'", ">= 0"});
  expectMentions(errorOf([&] { options.positive("k", 1); }), {"option 'k'", ">= 1"});
  expectMentions(errorOf([&] { options.choice("mode", "a", {"a", "b"}); }), {"option 'mode'", "a|b", "'c'"});
  expectMentions(errorOf([&] { options.sizes("size."); }), {"plugin 'demo'", "option 'size.a'", "'-5'"});
}

TEST(PluginOptionsTest, NonNumbersAreRejectedByTheOptionsThemselves) {
  auto raw = optionsOf("time=soon");
  expectMentions(errorOf([&] { PluginOptions(raw, "demo").nonNegative("time", 0); }), {"option 'time'", "'soon'"});
}

TEST(PluginOptionsTest, TheOwnerPrefixesTheMessage) {
  auto raw = optionsOf("");
  raw.setOwner("menu table [module]");
  expectMentions(errorOf([&] { PluginOptions(raw, "demo").required("x"); }),
                 {"menu table [module]: plugin 'demo': option 'x'"});
}

TEST(PluginOptionsTest, ForOptionBlamesTheOptionForAFailedRead) {
  auto raw = optionsOf("file=f.txt");
  PluginOptions options(raw, "demo");
  auto message = errorOf([&] { options.forOption("file", []() -> int { throw Exception("'f.txt' line 3: bad"); }); });
  expectMentions(message, {"plugin 'demo': option 'file'", "'f.txt' line 3: bad"});
  EXPECT_EQ(options.forOption("file", [] { return 7; }), 7);
}

TEST(PluginOptionsTest, ForOptionNamesThePluginOnce) {
  auto raw = optionsOf("file=");
  PluginOptions options(raw, "demo");
  EXPECT_EQ(errorOf([&] { options.forOption("file", [&] { return options.required("file"); }); }),
            "plugin 'demo': the value of 'file' is empty");
}

TEST(PluginOptionsTest, RefusesCountsOutOfRangeQuotingAShortenedValue) {
  auto raw = optionsOf("n=5000,big=" + std::string(300, '9') + ",size.a=2000000000000");
  PluginOptions options(raw, "demo");
  expectMentions(errorOf([&] { options.count("n", 0, 4096); }), {"option 'n'", ">= 0 and <= 4096", "5000"});
  expectMentions(errorOf([&] { options.positive("big", 1); }), {"option 'big'", "(300 characters)"});
  EXPECT_LT(errorOf([&] { options.positive("big", 1); }).size(), 200u);
  expectMentions(errorOf([&] { options.sizes("size."); }), {"size.a", "1 TiB"});
}

TEST(PluginOptionsTest, ARepeatedKeyReadAsOneValueIsRefused) {
  auto raw = optionsOf("n=1,n=2,keep=a,keep=b");
  PluginOptions options(raw, "demo");
  expectMentions(errorOf([&] { options.count("n", 0); }), {"option 'n' is given 2 times", "'1', '2'"});
  EXPECT_EQ(raw.getAll("keep"), (std::vector<std::string>{"a", "b"}));
}

TEST(PluginOptionsTest, EmptySpecsAndItemsAreRefused) {
  expectMentions(errorOf([] { PluginSpec::parse(""); }), {"empty SPEC"});
  expectMentions(errorOf([] { PluginSpec::parse("x:a=1,,b=2"); }), {"empty option", "x:a=1,,b=2"});
  expectMentions(errorOf([] { PluginSpec::parse("x:a=1,"); }), {"empty option"});
  expectMentions(errorOf([] { PluginSpec::parse("x:,a=1"); }), {"empty option"});
}

TEST(PluginOptionsTest, AValueInDoubleQuotesHoldsCommasAndEqualsSigns) {
  auto const spec = PluginSpec::parse(R"(root:file="a,b=c ü.root",n=1,t="say \"hi\", \\o/",e="",p=x=y:z)");
  EXPECT_EQ(spec.name, "root");
  EXPECT_EQ(spec.options.getAll("file"), std::vector<std::string>{"a,b=c ü.root"});
  EXPECT_EQ(spec.options.getAll("n"), std::vector<std::string>{"1"});
  EXPECT_EQ(spec.options.getAll("t"), std::vector<std::string>{R"(say "hi", \o/)"});
  EXPECT_EQ(spec.options.getAll("e"), std::vector<std::string>{""});
  EXPECT_EQ(spec.options.getAll("p"), std::vector<std::string>{"x=y:z"}) << "unquoted: up to the next comma";
  EXPECT_EQ(PluginSpec::parse(R"(x:a=b"c)").options.getAll("a"), std::vector<std::string>{R"(b"c)"})
      << "a quote inside a value is its own";
  EXPECT_EQ(PluginSpec::parse(R"(x:a="\d")").options.getAll("a"), std::vector<std::string>{R"(\d)"})
      << "a backslash escapes only a quote or a backslash";
}

TEST(PluginOptionsTest, AQuoteLeftOpenOrFollowedByTextIsRefused) {
  expectMentions(errorOf([] { PluginSpec::parse(R"(x:a="b,c)"); }), {"opens a quote that it does not close"});
  expectMentions(errorOf([] { PluginSpec::parse(R"(x:a="b"c,d=1)"); }), {"text after the closing quote"});
  expectMentions(errorOf([] { PluginSpec::parse(R"(x:a="b",)"); }), {"empty option"});
  expectMentions(errorOf([] { PluginSpec::parse(R"(x:a=b,c)"); }), {"malformed option 'c'"});
}

}  // namespace
}  // namespace lanes::test
