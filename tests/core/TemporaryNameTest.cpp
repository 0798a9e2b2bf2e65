#include "lanes/core/TemporaryName.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "lanes/core/Module.h"

namespace lanes {
namespace {

long const kGone = 999999999;  // beyond pid_max

TEST(TemporaryName, PartialPathAndBack) {
  EXPECT_EQ(partialPath("dir/out.root", 1234), "dir/out.root.partial-1234");
  auto const parsed = parseTemporary("dir/out.root.partial-1234");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->target, "dir/out.root");
  EXPECT_EQ(parsed->writers, std::vector<long>{1234});
}

TEST(TemporaryName, AJobPartNamesItsParent) {
  EXPECT_EQ(jobPartName("worker-2", 1234), "worker-2-of-1234");
  for (auto const* file : {"dir.d/out.root", "out", "a/b.c/out.tar.gz", "x.partial-3.root"}) {
    for (auto const* part : {"worker-2", "prefork"}) {
      auto const path = partPath(file, jobPartName(part, 1234));
      auto const finished = parseTemporary(path);
      ASSERT_TRUE(finished) << path;
      EXPECT_EQ(finished->target, file) << path;
      EXPECT_EQ(finished->writers, std::vector<long>{1234}) << path;
      // Its partial file: the worker writes it, for the parent to merge.
      auto const partial = parseTemporary(partialPath(path, 77));
      ASSERT_TRUE(partial) << path;
      EXPECT_EQ(partial->target, file) << path;
      EXPECT_EQ(partial->writers, (std::vector<long>{77, 1234})) << path;
    }
  }
}

TEST(TemporaryName, AnMpiRanksPartAndItsPartialHaveTheJobsFileAsTheirTarget) {
  auto const partial = parseTemporary("out.worker-3.root.partial-12");
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->target, "out.root");
  EXPECT_EQ(partial->writers, std::vector<long>{12});
  EXPECT_TRUE(partial->rankPart);
  auto const part = parseTemporary("out.worker-3.root");
  ASSERT_TRUE(part);
  EXPECT_EQ(part->target, "out.root");
  EXPECT_TRUE(part->writers.empty()) << "no pid in its name: only the claim of out.root tells whose it is";
  EXPECT_TRUE(part->rankPart);
  EXPECT_FALSE(parseTemporary("out.worker-0-of-12.root")->rankPart);
}

TEST(TemporaryName, AHelpersTemporaryOfAPartialFileIsOneToo) {
  auto const parsed = parseTemporary("page.html.partial-1234.tmp");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->target, "page.html");
  EXPECT_EQ(parsed->writers, std::vector<long>{1234});
}

TEST(TemporaryName, OtherNamesAreNotTemporary) {
  for (auto const* name : {"out.root", "out.root.partial-", "out.root.partial-12x", "dir/.partial-12", ".partial-12",
                           "out.root.partial-12345678901", "out.root.partial-12.", "out.root.partial-12.t-mp",
                           "out.prefork.root", "out.worker-x-of-12.root", "out.lumi-of-12.root", "run-of-12.root",
                           "dir.worker-1-of-12/out.root", "out.worker-1-of-.root"}) {
    EXPECT_FALSE(parseTemporary(name)) << name;
  }
}

TEST(TemporaryName, ProcessAlive) {
  EXPECT_TRUE(processAlive(::getpid()));
  EXPECT_FALSE(processAlive(0));
  EXPECT_FALSE(processAlive(-1));
  EXPECT_FALSE(processAlive(kGone));
}

class TemporaryNameFiles : public testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(directory_); }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  std::string path(std::string const& name) const { return (directory_ / name).string(); }
  void write(std::vector<std::string> const& paths) const {
    for (auto const& file : paths) std::ofstream(file) << "x";
  }
  static std::vector<std::string> sorted(std::vector<std::string> paths) {
    std::sort(paths.begin(), paths.end());
    return paths;
  }

  std::filesystem::path const directory_ =
      std::filesystem::temp_directory_path() / ("lanes-temporary-name-" + std::to_string(::getpid()));
};

TEST_F(TemporaryNameFiles, PartialsOfAFileWhoeverWritesThem) {
  auto const part = partPath(path("out.root"), jobPartName("worker-1", ::getpid()));
  std::vector<std::string> const partials{partialPath(part, kGone), partialPath(part, ::getpid())};
  write(partials);
  write({part, partialPath(path("out.root"), kGone), part + ".partial-x"});
  EXPECT_EQ(sorted(partialsOf(part)), sorted(partials));
}

}  // namespace
}  // namespace lanes
