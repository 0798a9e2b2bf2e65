#include "InstallLayout.h"

#include <filesystem>

namespace lanes::cli {

namespace {

namespace fs = std::filesystem;

std::string const& filesDirectory() {
  static std::string const directory = [] {
    std::error_code error;
    auto const self = fs::read_symlink("/proc/self/exe", error);
    auto const installed = self.parent_path().parent_path() / "share" / "lanes";
    if (!error && fs::is_directory(installed / "tools", error)) return installed.string();
    return std::string(LANES_SOURCE_DIR);
  }();
  return directory;
}

}  // namespace

std::string lanesFile(std::string const& relative) { return filesDirectory() + "/" + relative; }

}  // namespace lanes::cli
