#include "lanes/core/TemporaryName.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace lanes {
namespace {

TEST(TemporaryName, PartialPathAndBack) {
  EXPECT_EQ(partialPath("dir/out.root", 1234), "dir/out.root.partial-1234");
  auto const parsed = parsePartial("dir/out.root.partial-1234");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->target, "dir/out.root");
  EXPECT_EQ(parsed->pid, 1234);
}

TEST(TemporaryName, OtherNamesAreNotPartials) {
  for (auto const* name : {"out.root", "out.root.partial-", "out.root.partial-12x", "dir/.partial-12", ".partial-12",
                           "out.root.partial-12345678901"}) {
    EXPECT_FALSE(parsePartial(name)) << name;
  }
}

TEST(TemporaryName, ProcessAlive) {
  EXPECT_TRUE(processAlive(::getpid()));
  EXPECT_FALSE(processAlive(0));
  EXPECT_FALSE(processAlive(-1));
}

TEST(TemporaryName, StalePartialsOfAFileAndItsWorkerParts) {
  namespace fs = std::filesystem;
  auto const directory = fs::temp_directory_path() / ("lanes-temporary-name-" + std::to_string(::getpid()));
  fs::create_directories(directory);
  auto const file = (directory / "out.root").string();
  long const gone = 999999999;  // beyond pid_max
  std::vector<std::string> const stale{partialPath(file, gone), partialPath((directory / "out.worker-3.root").string(), gone)};
  std::vector<std::string> const kept{partialPath(file, ::getpid()), partialPath((directory / "other.root").string(), gone),
                                      partialPath((directory / "out.worker-x.root").string(), gone), file};
  for (auto const& path : stale) std::ofstream(path) << "x";
  for (auto const& path : kept) std::ofstream(path) << "x";
  auto expected = stale;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(stalePartials(file), expected);
  fs::remove_all(directory);
}

}  // namespace
}  // namespace lanes
