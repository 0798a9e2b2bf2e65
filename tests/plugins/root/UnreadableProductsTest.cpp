// What the ROOT sources say of the branches and fields they cannot read: the
// one-line refusal, what unreadable=skip reports, and the exclude= globs.

#include "root/UnreadableProducts.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "lanes/core/OutputModule.h"
#include "plugins/PluginTesting.h"

namespace lanes::rootio::test {
namespace {

using mimicry::test::errorOf;
using mimicry::test::expectMentions;
using mimicry::test::optionsOf;

// Whether `globs` match every name of `unreadable` and none of `readable`.
bool leaveOutExactly(std::vector<std::string> const& globs, std::vector<std::string> const& unreadable,
                     std::vector<std::string> const& readable) {
  auto const matched = [&](std::string const& name) {
    return std::any_of(globs.begin(), globs.end(), [&](auto const& glob) { return globMatch(glob, name); });
  };
  return std::all_of(unreadable.begin(), unreadable.end(), matched) && std::none_of(readable.begin(), readable.end(), matched);
}

TEST(UnreadableProductsTest, GlobsCutWhereWordsStartAndMatchNoReadableName) {
  std::vector<std::string> const unreadable{"AnalysisJetsAuxDyn:btaggingLink", "AnalysisMuonsAuxDyn:truthParticleLink",
                                            "TruthBosonAuxDyn:prodVtxLink", "METAssoc_AnalysisMETAux:"};
  std::vector<std::string> const readable{"AnalysisJetsAuxDyn:pt", "AnalysisMuonsAuxDyn:eta", "EventInfoAux:",
                                          "METAssoc_AnalysisMET"};
  auto const globs = excludeGlobs(unreadable, readable);
  EXPECT_EQ(globs, (std::vector<std::string>{"*Link", "METAssoc_AnalysisMETAux:"}));
  EXPECT_TRUE(leaveOutExactly(globs, unreadable, readable));
}

TEST(UnreadableProductsTest, AWholeNameWhereNoShorterGlobFits) {
  std::vector<std::string> const unreadable{"Muon_pt"};
  std::vector<std::string> const readable{"Muon_eta", "Electron_pt"};
  EXPECT_EQ(excludeGlobs(unreadable, readable), std::vector<std::string>{"Muon_pt"});
}

TEST(UnreadableProductsTest, ManyNamesFewGlobs) {
  std::vector<std::string> unreadable, readable;
  for (int i = 0; i < 300; ++i) {
    unreadable.push_back("Truth" + std::to_string(i) + "AuxDyn:parentLinks");
    unreadable.push_back("Truth" + std::to_string(i) + "AuxDyn:childLinks");
    readable.push_back("Truth" + std::to_string(i) + "AuxDyn:pt");
  }
  auto const globs = excludeGlobs(unreadable, readable);
  EXPECT_EQ(globs, (std::vector<std::string>{"*Links"}));
  EXPECT_TRUE(leaveOutExactly(globs, unreadable, readable));
}

TEST(UnreadableProductsTest, RefusesInOneLineNamingTheFirstFewAndCountingTheRest) {
  UnreadableProducts unreadable(PluginOptions(optionsOf(""), "rntuple"), "field");
  EXPECT_NO_THROW(unreadable.refuseOrSkip("'f.root': RNTuple 'Events'", {"a"})) << "nothing to refuse";
  for (std::string name : {"xLink", "yLink", "zLink", "wLink", "other"}) unreadable.add(name, "why of " + name);
  auto const error = errorOf([&] { unreadable.refuseOrSkip("'f.root': RNTuple 'Events'", {"pt", "eta"}); });
  EXPECT_EQ(error, "'f.root': RNTuple 'Events': 5 selected fields cannot be read here: 'xLink' (why of xLink), "
                   "'yLink' (why of yLink), 'zLink' (why of zLink) and 2 more; leave them out with "
                   "exclude=*Link,exclude=other, or read the rest with unreadable=skip");
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(UnreadableProductsTest, SkipReadsTheRestAndListsWhatItSkipped) {
  UnreadableProducts branches(PluginOptions(optionsOf("unreadable=skip"), "root"), "branch");
  EXPECT_TRUE(branches.details().empty());
  branches.add("flags", "no dictionary");
  EXPECT_NO_THROW(branches.refuseOrSkip("TTree 'Events'", {"tracks"}));
  EXPECT_EQ(branches.details().dump(), R"({"skipped_branches":[{"name":"flags","why":"no dictionary"}]})");
}

TEST(UnreadableProductsTest, AnUnknownPolicyIsNamed) {
  expectMentions(errorOf([] { UnreadableProducts(PluginOptions(optionsOf("unreadable=ignore"), "rntuple"), "field"); }),
                 {"rntuple", "unreadable", "ignore"});
}

}  // namespace
}  // namespace lanes::rootio::test
