// Reading product-size profiles, the real one and broken ones.

#include "mimicry/Profile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "plugins/PluginTesting.h"

namespace lanes::mimicry::test {
namespace {

TEST(ProfileTest, ReadsTheNanoAodProfile) {
  auto products = loadProfile(nanoaodProfile());
  ASSERT_EQ(products.size(), 947u);
  EXPECT_EQ(products.front().label, "run");
  EXPECT_EQ(products.front().at(0), 4u);  // uint32_t
  nlohmann::json document = nlohmann::json::parse(std::ifstream(nanoaodProfile()));
  EXPECT_EQ(document["events"], 200);
  for (std::size_t p = 0; p < products.size(); ++p) {
    auto const& bytes = document["products"][p]["bytes"];
    ASSERT_EQ(products[p].bytes.size(), 200u) << products[p].label;
    EXPECT_EQ(products[p].at(7), bytes[7].get<std::size_t>()) << products[p].label;
    EXPECT_EQ(products[p].at(207), bytes[7].get<std::size_t>()) << products[p].label;  // cycled
  }
}

TEST(ProfileTest, UsesTheMeanWithoutPerEventBytes) {
  TemporaryFile file(R"({"products": [{"label": "a", "bytes_mean": 10.6}, {"label": "b", "bytes_mean": 0}]})");
  auto products = loadProfile(file.path());
  ASSERT_EQ(products.size(), 2u);
  EXPECT_EQ(products[0].label, "a");
  EXPECT_EQ(products[0].at(0), 11u);
  EXPECT_EQ(products[0].at(12345), 11u);
  EXPECT_EQ(products[1].at(3), 0u);
}

TEST(ProfileTest, PerEventBytesWinOverTheMean) {
  TemporaryFile file(R"({"products": [{"label": "a", "bytes_mean": 2, "bytes": [1, 2, 3]}]})");
  auto products = loadProfile(file.path());
  EXPECT_EQ(products[0].at(0), 1u);
  EXPECT_EQ(products[0].at(4), 2u);
}

TEST(ProfileTest, AMissingFileIsNamed) {
  expectMentions(errorOf([] { loadProfile("/nonexistent/profile.json"); }),
                 {"'/nonexistent/profile.json'", "cannot open"});
}

struct BrokenProfile {
  char const* json;
  char const* problem;
};

class BrokenProfileTest : public ::testing::TestWithParam<BrokenProfile> {};

TEST_P(BrokenProfileTest, NamesTheFileAndTheProblem) {
  TemporaryFile file(GetParam().json);
  expectMentions(errorOf([&] { loadProfile(file.path()); }), {file.path().c_str(), GetParam().problem});
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BrokenProfileTest,
    ::testing::Values(BrokenProfile{R"({"products": [)", "not valid JSON"},
                      BrokenProfile{R"([1, 2])", "no 'products' array"},
                      BrokenProfile{R"({"products": {"label": "a"}})", "no 'products' array"},
                      BrokenProfile{R"({"products": [{"bytes": [1]}]})", "product 0 has no 'label'"},
                      BrokenProfile{R"({"products": [7]})", "product 0 has no 'label'"},
                      BrokenProfile{R"({"products": [{"label": "a"}]})", "neither 'bytes' nor 'bytes_mean'"},
                      BrokenProfile{R"({"products": [{"label": "a", "bytes": []}]})", "non-empty array"},
                      BrokenProfile{R"({"products": [{"label": "a", "bytes": [1, -2]}]})", "integers >= 0"},
                      BrokenProfile{R"({"products": [{"label": "a", "bytes": [1.5]}]})", "integers >= 0"},
                      BrokenProfile{R"({"products": [{"label": "a", "bytes_mean": "big"}]})", "'bytes_mean'"},
                      BrokenProfile{R"({"products": [{"label": "a", "bytes_mean": -1}]})", "'bytes_mean'"}));

}  // namespace
}  // namespace lanes::mimicry::test
