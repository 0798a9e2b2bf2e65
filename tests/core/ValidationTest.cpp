// Start-up validation: every mistake in a job is reported before the first
// event, with the culprits named.

#include <gtest/gtest.h>

#include "core/TestPlugins.h"

namespace lanes::test {
namespace {

class ValidationTest : public ::testing::Test {
 protected:
  // The message of the lanes::Exception that constructing `config` throws.
  std::string rejection(JobConfig const& config) {
    auto registry = testRegistry(observations);
    try {
      EventProcessor processor(config, registry);
    } catch (Exception const& e) {
      return e.what();
    }
    ADD_FAILURE() << "the job was accepted";
    return {};
  }
  Observations observations;
};

TEST_F(ValidationTest, UnknownSourceListsKnownOnes) {
  EXPECT_EQ(rejection(job("nosuch")), "unknown source 'nosuch' (known: count)");
}

TEST_F(ValidationTest, UnknownModulePlugin) {
  auto config = job();
  config.modules = {{"m", PluginSpec::parse("nosuch")}};
  EXPECT_NE(rejection(config).find("unknown module 'nosuch'"), std::string::npos);
}

TEST_F(ValidationTest, UnknownOutputPlugin) {
  auto config = job();
  config.outputs = {{"o", PluginSpec::parse("nosuch"), {}}};
  EXPECT_EQ(rejection(config), "unknown output 'nosuch' (known: collect)");
}

TEST_F(ValidationTest, UnknownOptionNamesModuleAndKnownOptions) {
  auto config = job();
  config.modules = {{"f", PluginSpec::parse("throw:att=3")}};
  EXPECT_EQ(rejection(config), "module 'f' (construction): unknown option 'att' (known: at)");
}

TEST_F(ValidationTest, IllTypedOptionNamesModuleAndValue) {
  auto config = job();
  config.modules = {{"f", PluginSpec::parse("throw:at=three")}};
  EXPECT_EQ(rejection(config), "module 'f' (construction): option 'at' expects an integer, got 'three'");
}

TEST_F(ValidationTest, UnknownSourceOption) {
  EXPECT_EQ(rejection(job("count:evnts=3")), "source (construction): unknown option 'evnts' (known: chunk, events, fail-next-at, fail-read-at, shared)");
}

TEST_F(ValidationTest, BadRepeatValue) {
  EXPECT_EQ(rejection(job("count:repeat=0")), "source option 'repeat' must be a number of events from 1 to 100000000, got '0'");
}

TEST_F(ValidationTest, ProductConsumedButNeverProduced) {
  auto config = job();
  config.modules = {{"a", PluginSpec::parse("add:in=tracks")}};
  EXPECT_EQ(rejection(config), "module 'a' consumes product 'tracks', which nothing produces");
}

TEST_F(ValidationTest, ProductProducedTwice) {
  auto config = job();
  config.modules = {{"a", PluginSpec::parse("add:out=x")}, {"b", PluginSpec::parse("add:out=x")}};
  EXPECT_EQ(rejection(config), "product 'x' is produced twice: by module 'a' and by module 'b'");
}

TEST_F(ValidationTest, ProductProducedAlsoBySource) {
  auto config = job();
  config.modules = {{"a", PluginSpec::parse("add:out=n")}};
  EXPECT_EQ(rejection(config), "product 'n' is produced twice: by the source and by module 'a'");
}

TEST_F(ValidationTest, ConsumedWithTheWrongType) {
  auto config = job();
  config.modules = {{"a", PluginSpec::parse("add:in=blob")}};
  EXPECT_EQ(rejection(config), "module 'a' consumes product 'blob' as int, but it is a lanes::SyntheticBytes");
}

TEST_F(ValidationTest, DependencyCycleIsPrinted) {
  auto config = job();
  config.modules = {{"a", PluginSpec::parse("add:in=c")}, {"b", PluginSpec::parse("add:in=a")},
                    {"c", PluginSpec::parse("add:in=b")}};
  EXPECT_EQ(rejection(config), "dependency cycle: 'a' -> 'c' -> 'b' -> 'a' (each consumes a product of the next)");
}

TEST_F(ValidationTest, DuplicateLabels) {
  auto config = job();
  config.modules = {{"a", PluginSpec::parse("add")}, {"a", PluginSpec::parse("even")}};
  EXPECT_EQ(rejection(config), "two modules are labelled 'a'");
}

TEST_F(ValidationTest, PathNamesUnknownModule) {
  auto config = job();
  config.paths = {{"p", {"ghost"}}};
  EXPECT_EQ(rejection(config), "path 'p' names module 'ghost', which is not defined");
}

TEST_F(ValidationTest, OutputSelectsUnknownPath) {
  auto config = job();
  config.outputs = {{"o", PluginSpec::parse("collect"), {"nopath"}}};
  EXPECT_EQ(rejection(config), "output 'o' selects path 'nopath', which is not defined");
}

TEST_F(ValidationTest, ZeroThreads) {
  auto config = job();
  config.threads = 0;
  EXPECT_EQ(rejection(config), "the number of threads must be at least 1");
}

TEST_F(ValidationTest, ModuleAsWaiter) {
  auto config = job();
  config.waiters = {PluginSpec::parse("add")};
  EXPECT_EQ(rejection(config), "'add' is a module, not a waiter");
}

}  // namespace
}  // namespace lanes::test
