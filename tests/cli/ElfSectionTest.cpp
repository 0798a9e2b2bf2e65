// readElfSection(): a section of a real ELF file, and nothing (never a crash)
// from a file that is no ELF file or whose headers are cut off.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ElfSection.h"
#include "lanes/core/Exception.h"

namespace {

using lanes::cli::readElfSection;

std::string const self = std::filesystem::read_symlink("/proc/self/exe").string();

// A file of `bytes` in the temporary directory, removed when it goes.
class TemporaryFile {
 public:
  TemporaryFile(std::string const& name, std::string const& bytes)
      : path_((std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))).string()) {
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~TemporaryFile() { std::filesystem::remove(path_); }
  std::string const& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ElfSectionTest, ReadsASectionOfThisBinary) {
  auto const comment = readElfSection(self, ".comment");  // the compiler's name, which GCC and Clang leave
  ASSERT_TRUE(comment.has_value());
  EXPECT_NE(comment->find("GCC"), std::string::npos);
  EXPECT_FALSE(readElfSection(self, ".lanes_plugin").has_value());
  EXPECT_FALSE(readElfSection(self, ".commen").has_value());  // a prefix of a name is not the name
}

TEST(ElfSectionTest, FindsNothingInAFileThatIsNoElfFileOrIsCutOff) {
  EXPECT_FALSE(readElfSection(TemporaryFile("lanes-elf-text", "not an ELF file\n").path(), ".comment").has_value());
  EXPECT_FALSE(readElfSection(TemporaryFile("lanes-elf-empty", "").path(), ".comment").has_value());
  std::ifstream in(self, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  TemporaryFile const cut("lanes-elf-cut", head);  // its section headers lie beyond its end
  EXPECT_FALSE(readElfSection(cut.path(), ".comment").has_value());
}

TEST(ElfSectionTest, AFileThatCannotBeOpenedIsAnError) {
  EXPECT_THROW(readElfSection("/nonexistent/libx.so", ".comment"), lanes::Exception);
}

}  // namespace
