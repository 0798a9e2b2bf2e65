// The files of a job and the check that nothing it writes is a file it also reads or writes elsewhere.

#include "lanes/core/JobFiles.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "lanes/core/Exception.h"

namespace lanes {
namespace {

namespace fs = std::filesystem;

class JobFilesTest : public testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("lanes-jobfiles-" + std::to_string(::getpid()));
    fs::create_directories(directory_);
    std::ofstream(path("in.root")) << "root";
  }
  void TearDown() override { fs::remove_all(directory_); }
  std::string path(std::string const& name) const { return (directory_ / name).string(); }

  // The error requireDistinctFiles() throws for `files`, or "" if none.
  static std::string errorOf(std::vector<JobFile> const& files) {
    try {
      requireDistinctFiles(files);
    } catch (Exception const& error) {
      return error.message();
    }
    return {};
  }

  fs::path directory_;
};

TEST_F(JobFilesTest, ReadingOneFileTwiceIsFine) {
  EXPECT_EQ(errorOf({{path("in.root"), false, "a"}, {path("in.root"), false, "b"}}), "");
}

TEST_F(JobFilesTest, WritingAnInputThroughASymlinkOrAHardLinkIsRefused) {
  fs::create_symlink(path("in.root"), path("soft.root"));
  fs::create_hard_link(path("in.root"), path("hard.root"));
  for (auto const* name : {"in.root", "soft.root", "hard.root"}) {
    auto const error = errorOf({{path("in.root"), false, "the source"}, {path(name), true, "output 'o'"}});
    EXPECT_NE(error.find("output 'o' and the source are the same file"), std::string::npos) << error;
    EXPECT_NE(error.find("overwrite its own input"), std::string::npos) << error;
  }
}

TEST_F(JobFilesTest, TwoWritesOfAFileNotThereYetAreRefused) {
  fs::create_directory_symlink(directory_, path("again"));
  auto const error = errorOf({{path("new.root"), true, "a"}, {path("again/new.root"), true, "b"}});
  EXPECT_NE(error.find("write it twice"), std::string::npos) << error;
  EXPECT_EQ(errorOf({{path("new.root"), true, "a"}, {path("other.root"), true, "b"}}), "");
}

TEST_F(JobFilesTest, ListsAndFileOptionsComeFromTheRegistryDeclarations) {
  std::ofstream(path("list.txt")) << "# inputs\n\n  in.root  \n/abs/x.root\n";
  EXPECT_EQ(readFileList(path("list.txt")), (std::vector<std::string>{path("in.root"), "/abs/x.root"}));
  JobConfig config;
  config.source = PluginSpec::parse("synthetic:profile=" + path("p.json"));
  config.outputs.push_back({"o", PluginSpec::parse("dummy:file=" + path("x")), {}});
  auto const files = jobFiles(config);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_FALSE(files[0].written);
  EXPECT_EQ(files[0].use, "the source (profile=" + path("p.json") + ")");
  EXPECT_TRUE(files[1].written);
  EXPECT_THROW(readFileList(path("nosuch.txt")), Exception);
}

}  // namespace
}  // namespace lanes
