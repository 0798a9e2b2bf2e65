// `lanes inspect`'s metadata view of a file, checked against the profile
// lanes.tools.derive_profile derived from the same file's data with uproot.

#include "root/Inspect.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "mimicry/Profile.h"
#include "plugins/PluginTesting.h"
#include "plugins/root/RootTesting.h"

namespace lanes::rootio::test {
namespace {

TEST(InspectTest, TreeSizesFromMetadataMatchThoseMeasuredFromTheData) {
  auto const datasets = inspectFile(dataFile(kNanoAod));
  ASSERT_EQ(datasets.size(), 1u);
  auto const& tree = datasets.front();
  EXPECT_EQ(tree.kind, "TTree");
  EXPECT_EQ(tree.entries, 200u);
  ASSERT_EQ(tree.products.size(), 947u);

  std::map<std::string, double> measured;
  for (auto const& product : mimicry::loadProfile(mimicry::test::nanoaodProfile())) {
    double total = 0;
    for (auto bytes : product.bytes) total += static_cast<double>(bytes);
    measured[product.label] = total / static_cast<double>(product.bytes.size());
  }
  for (auto const& product : tree.products) {
    ASSERT_TRUE(measured.count(product.name)) << product.name;
    // ROOT's count adds basket headers and, for arrays, entry offsets: a few percent.
    EXPECT_NEAR(product.uncompressedPerEvent, measured[product.name], std::max(1e-6, 0.02 * measured[product.name]))
        << product.name;
  }
}

TEST(InspectTest, NtupleFieldsHaveTypesAndSizes) {
  auto const datasets = inspectFile(dataFile(kMuons));
  ASSERT_EQ(datasets.size(), 1u);
  auto const& ntuple = datasets.front();
  EXPECT_EQ(ntuple.kind, "RNTuple");
  EXPECT_EQ(ntuple.entries, 1000u);
  ASSERT_EQ(ntuple.products.size(), 7u);
  EXPECT_EQ(ntuple.products[1].name, "Muon_pt");
  EXPECT_EQ(ntuple.products[1].type, "ROOT::VecOps::RVec<float>");
  EXPECT_GT(ntuple.products[1].compressedPerEvent, 0);
  EXPECT_GT(ntuple.products[1].uncompressedPerEvent, ntuple.products[1].compressedPerEvent);
}

// The corpus file that killed the process (exit 139): ROOT 6.40 would
// dereference the missing class of the variant as it made the field.
TEST(InspectTest, NtupleFieldsThatCannotBeReadAreMarkedWithTheGlobsThatLeaveThemOut) {
  auto const datasets = inspectFile(dataFile("rntuple/test_emptystruct_invalidvar_rntuple_v1-0-0-0.root"));
  ASSERT_EQ(datasets.size(), 1u);
  auto const& ntuple = datasets.front();
  ASSERT_EQ(ntuple.products.size(), 2u);
  EXPECT_EQ(ntuple.products[0].name, "empty_struct");
  EXPECT_EQ(ntuple.products[0].unreadable, "") << "an empty class reads emulated";
  EXPECT_EQ(ntuple.products[1].name, "variant");
  mimicry::test::expectMentions(ntuple.products[1].unreadable,
                                {"std::variant<std::int32_t,StructForVariant>", "it would crash"});
  EXPECT_EQ(ntuple.exclude, "exclude=variant");
  EXPECT_EQ(inspectFile(dataFile(kMuons)).front().exclude, "") << "every field reads";
}

TEST(InspectTest, TheProfileFeedsTheSyntheticSource) {
  auto const tree = inspectFile(dataFile(kHzz)).front();
  mimicry::test::TemporaryFile profile(profileOf(tree, kHzz));
  auto const products = mimicry::loadProfile(profile.path());
  ASSERT_EQ(products.size(), tree.products.size());
  for (std::size_t i = 0; i < products.size(); ++i) {
    EXPECT_EQ(products[i].label, tree.products[i].name);
    ASSERT_EQ(products[i].bytes.size(), 1u) << "a constant size: the mean";
    EXPECT_EQ(products[i].bytes.front(), static_cast<std::size_t>(std::lround(tree.products[i].uncompressedPerEvent)));
  }
  auto const summary = mimicry::test::runJob(mimicry::test::jobWith("synthetic:events=5,profile=" + profile.path()));
  EXPECT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 5u);
}

TEST(InspectTest, AFileThatIsNoRootFileIsNamed) {
  mimicry::test::expectMentions(mimicry::test::errorOf([] { inspectFile("/nonexistent.root"); }),
                                {"/nonexistent.root", "does not exist"});
}

}  // namespace
}  // namespace lanes::rootio::test
