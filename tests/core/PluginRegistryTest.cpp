// The registry's record of where each plugin comes from, and what it does
// with a name that a plugin library registers a second time.

#include <gtest/gtest.h>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"

namespace {

using lanes::PluginRegistry;

template <int Tag>
class Tagged : public lanes::global::Analyzer {
 public:
  Tagged(std::string label, lanes::Options const&) : Analyzer(std::move(label)) {}
  void analyze(lanes::Event const&) const override {}
};

template <int Tag>
void addModule(PluginRegistry& registry, std::string const& name) {
  registry.addModule({name, "test"}, [](std::string const& label, lanes::Options const& options) {
    return std::unique_ptr<lanes::Module>(std::make_unique<Tagged<Tag>>(label, options));
  });
}

TEST(PluginRegistryTest, WhatALibraryRegistersIsMarkedAsItsAndTheRestAsBuiltIn) {
  PluginRegistry registry;
  addModule<1>(registry, "built-in");
  registry.beginLibrary("/plugins/libmine.so");
  addModule<2>(registry, "mine");
  EXPECT_TRUE(registry.endLibrary().empty());
  addModule<3>(registry, "later");
  EXPECT_EQ(registry.findModule("built-in")->library, "");
  EXPECT_EQ(registry.findModule("mine")->library, "/plugins/libmine.so");
  EXPECT_EQ(registry.findModule("later")->library, "");
}

TEST(PluginRegistryTest, ANameALibraryRegistersAgainIsAConflictAndTheFirstStays) {
  PluginRegistry registry;
  addModule<1>(registry, "taken");
  registry.beginLibrary("/plugins/liba.so");
  addModule<2>(registry, "a");
  registry.endLibrary();
  registry.beginLibrary("/plugins/libb.so");
  addModule<3>(registry, "taken");
  addModule<3>(registry, "a");
  addModule<3>(registry, "b");
  auto const conflicts = registry.endLibrary();
  ASSERT_EQ(conflicts.size(), 2u);
  EXPECT_EQ(conflicts[0].kind, "module");
  EXPECT_EQ(conflicts[0].name, "taken");
  EXPECT_EQ(conflicts[0].firstLibrary, "");
  EXPECT_EQ(conflicts[1].name, "a");
  EXPECT_EQ(conflicts[1].firstLibrary, "/plugins/liba.so");
  lanes::Options none;
  EXPECT_NE(dynamic_cast<Tagged<1>*>(registry.makeModule("taken", "t", none).get()), nullptr);
  EXPECT_NE(dynamic_cast<Tagged<2>*>(registry.makeModule("a", "a", none).get()), nullptr);
  EXPECT_EQ(registry.findModule("b")->library, "/plugins/libb.so");
  registry.beginLibrary("/plugins/libc.so");
  EXPECT_TRUE(registry.endLibrary().empty());  // each library's conflicts are its own
}

TEST(PluginRegistryTest, ABuiltInNameRegisteredAgainIsReplacedAsBefore) {
  PluginRegistry registry;
  addModule<1>(registry, "twice");
  addModule<2>(registry, "twice");
  lanes::Options none;
  EXPECT_NE(dynamic_cast<Tagged<2>*>(registry.makeModule("twice", "t", none).get()), nullptr);
}

}  // namespace
