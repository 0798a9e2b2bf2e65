// The `synthetic` source: products from sizes or a profile, per-event sizes,
// cycling, replication, errors, and in a job.

#include "mimicry/SyntheticSource.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "lanes/core/OutputModule.h"
#include "lanes/core/PluginRegistry.h"
#include "mimicry/Profile.h"
#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

std::unique_ptr<Source> syntheticSource(std::string const& options) {
  return PluginRegistry::instance().makeSource("synthetic", optionsOf(options));
}

std::vector<std::string> labels(Source const& source) {
  std::vector<std::string> result;
  for (auto const& product : source.products()) result.push_back(product.label);
  return result;
}

// Reads product `product` of event ordinal `ordinal`, returning its size.
std::size_t readBytes(Source& source, std::uint64_t ordinal, std::size_t product) {
  SourceEvent event;
  EXPECT_TRUE(source.at(ordinal, event));
  ProductSlot slot;
  source.read(event, product, slot);
  EXPECT_TRUE(slot.filled());
  EXPECT_EQ(slot.type(), typeid(SyntheticBytes));
  EXPECT_EQ(static_cast<SyntheticBytes const*>(slot.object())->size, slot.bytes());
  return slot.bytes();
}

TEST(SyntheticSourceTest, FixedSizesMakeOneProductEach) {
  auto source = syntheticSource("size.tracks=1000,size.hits=24,events=4");
  EXPECT_EQ(labels(*source), (std::vector<std::string>{"hits", "tracks"}));
  for (auto const& product : source->products()) EXPECT_EQ(product.type, typeid(SyntheticBytes));
  EXPECT_EQ(readBytes(*source, 0, 0), 24u);
  EXPECT_EQ(readBytes(*source, 3, 1), 1000u);
  EXPECT_TRUE(source->concurrentReads());
  EXPECT_EQ(source->origin(), "synthetic");
}

TEST(SyntheticSourceTest, NumbersEventsAndStopsAtTheLimit) {
  auto source = syntheticSource("size.a=1,events=2");
  SourceEvent event;
  ASSERT_TRUE(source->next(event));
  EXPECT_EQ(event.id, (EventId{1, 1, 1}));
  ASSERT_TRUE(source->next(event));
  EXPECT_EQ(event.id, (EventId{1, 1, 2}));
  EXPECT_FALSE(source->next(event));
  auto replica = source->replicate();
  ASSERT_NE(replica, nullptr);
  EXPECT_TRUE(replica->at(1, event));
  EXPECT_EQ(event.id, (EventId{1, 1, 2}));
  EXPECT_FALSE(replica->at(2, event));
}

TEST(SyntheticSourceTest, ReplaysTheProfilePerEvent) {
  auto source = syntheticSource("profile=" + nanoaodProfile());
  auto profile = loadProfile(nanoaodProfile());
  ASSERT_EQ(source->products().size(), profile.size());
  EXPECT_EQ(source->origin(), nanoaodProfile());
  auto replica = source->replicate();
  for (std::size_t p = 0; p < profile.size(); p += 37) {
    EXPECT_EQ(source->products()[p].label, profile[p].label);
    for (std::uint64_t ordinal : {0u, 1u, 199u, 200u, 401u}) {
      EXPECT_EQ(readBytes(*replica, ordinal, p), profile[p].at(ordinal)) << profile[p].label << " @" << ordinal;
    }
  }
}

TEST(SyntheticSourceTest, ARelativeProfilePathIsRelativeToTheCurrentDirectory) {
  auto relative = std::filesystem::relative(nanoaodProfile()).string();
  ASSERT_NE(relative.front(), '/');
  EXPECT_EQ(syntheticSource("profile=" + relative)->products().size(), 947u);
}

TEST(SyntheticSourceTest, CountCyclesTheProducts) {
  auto source = syntheticSource("profile=" + nanoaodProfile() + ",count=2000");
  auto const& products = source->products();
  ASSERT_EQ(products.size(), 2000u);
  EXPECT_EQ(products[0].label, "run");
  EXPECT_EQ(products[947].label, "run_2");
  EXPECT_EQ(products[1894].label, "run_3");
  auto jet = std::find_if(products.begin(), products.end(), [](auto const& p) { return p.label == "Jet_pt"; });
  ASSERT_NE(jet, products.end());
  auto const jetIndex = static_cast<std::size_t>(jet - products.begin());
  EXPECT_EQ(products[jetIndex + 947].label, "Jet_pt_2");
  for (std::uint64_t ordinal : {0u, 5u, 150u}) {
    EXPECT_EQ(readBytes(*source, ordinal, jetIndex + 947), readBytes(*source, ordinal, jetIndex));
  }
  EXPECT_EQ(labels(*syntheticSource("size.a=1,size.b=2,count=5")),
            (std::vector<std::string>{"a", "b", "a_2", "b_2", "a_3"}));
  EXPECT_EQ(labels(*syntheticSource("size.a=1,size.b=2,count=1")), (std::vector<std::string>{"a"}));
}

TEST(SyntheticSourceTest, RejectsBadOptions) {
  expectMentions(errorOf([] { syntheticSource(""); }), {"plugin 'synthetic'", "no products"});
  expectMentions(errorOf([] { syntheticSource("events=5"); }), {"plugin 'synthetic'", "no products"});
  expectMentions(errorOf([] { syntheticSource("size.a=ten"); }), {"plugin 'synthetic'", "option 'size.a'", "'ten'"});
  expectMentions(errorOf([] { syntheticSource("size.a=1,count=-2"); }), {"option 'count'"});
  expectMentions(errorOf([] { syntheticSource("size.a=1,events=-2"); }), {"option 'events'"});
  expectMentions(errorOf([&] { syntheticSource("size.a=1,profile=" + nanoaodProfile()); }),
                 {"option 'profile'", "size.<label>"});
  expectMentions(errorOf([] { syntheticSource("size.a=1,sizes.b=2"); }), {"unknown option 'sizes.b'"});
}

TEST(SyntheticSourceTest, BadProfilesNameThePluginOptionAndFile) {
  expectMentions(errorOf([] { syntheticSource("profile=/nonexistent/p.json"); }),
                 {"plugin 'synthetic'", "option 'profile'", "'/nonexistent/p.json'"});
  TemporaryFile broken(R"({"products": [{"label": "a", "bytes": "many"}]})");
  expectMentions(errorOf([&] { syntheticSource("profile=" + broken.path()); }),
                 {"plugin 'synthetic'", "option 'profile'", broken.path().c_str(), "product 'a'"});
  TemporaryFile empty(R"({"products": []})");
  expectMentions(errorOf([&] { syntheticSource("profile=" + empty.path()); }),
                 {"option 'profile'", empty.path().c_str(), "no products"});
}

class SyntheticSourceJobTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(SyntheticSourceJobTest, EveryKeptProductReachesTheOutputInEveryEvent) {
  auto config = jobWith("synthetic:events=50,profile=" + nanoaodProfile(), GetParam());
  config.outputs.push_back({"out", PluginSpec::parse("dummy:ready=true,keep=Jet_*"), {}});
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 50u);
  int jetProducts = 0;
  for (auto const& product : loadProfile(nanoaodProfile())) jetProducts += globMatch("Jet_*", product.label);
  EXPECT_GT(jetProducts, 10);
  EXPECT_EQ(calls.count("out", Transition::Event), 50);
  EXPECT_EQ(calls.count("out", Transition::ProductReady), 50 * jetProducts);
}

TEST_P(SyntheticSourceJobTest, WorksUnderTheCoreRepeatWrapper) {
  auto config = jobWith("synthetic:size.a=100,size.b=7,repeat=10", GetParam());
  config.maxEvents = 40;
  config.outputs.push_back({"out", PluginSpec::parse("dummy:ready=true"), {}});
  CallCounter calls;
  auto summary = runJob(config, &calls);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 40u);
  EXPECT_EQ(calls.count("out", Transition::ProductReady), 80);
}

INSTANTIATE_TEST_SUITE_P(Threads, SyntheticSourceJobTest, ::testing::Values(1u, 2u, 4u));

}  // namespace
}  // namespace lanes::mimicry::test
