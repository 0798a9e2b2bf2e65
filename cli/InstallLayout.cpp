#include "InstallLayout.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace lanes::cli {

namespace {

namespace fs = std::filesystem;

// The directory of this executable (bin/); empty if /proc cannot say.
fs::path const& executableDirectory() {
  static fs::path const directory = [] {
    std::error_code error;
    auto const self = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::path() : self.parent_path();
  }();
  return directory;
}

bool installed() {
  static bool const answer = [] {
    std::error_code error;
    return !executableDirectory().empty() &&
           fs::is_directory(executableDirectory().parent_path() / "share" / "lanes" / "data", error);
  }();
  return answer;
}

std::string const& filesDirectory() {
  static std::string const directory =
      installed() ? (executableDirectory().parent_path() / "share" / "lanes").string() : std::string(LANES_SOURCE_DIR);
  return directory;
}

}  // namespace

std::string lanesFile(std::string const& relative) { return filesDirectory() + "/" + relative; }

std::string pythonPackageRoot() {
  static std::string const root = [] {
    std::error_code error;
    auto const candidate = lanesFile("python");
    return fs::is_directory(candidate + "/lanes", error) ? candidate : std::string();
  }();
  return root;
}

std::string pythonInterpreter() {
  static std::string const python = [] {
    auto const beside = executableDirectory() / "python";  // lanes installed into a Python environment
    if (installed() && ::access(beside.c_str(), X_OK) == 0) return beside.string();
    return std::string(LANES_SOURCE_DIR "/.venv/bin/python");
  }();
  return python;
}

std::string optionalPluginDirectory() {
  return (executableDirectory().parent_path() / "lib" / "lanes" / "optional").string();
}

std::string optionalPluginLibrary(std::string const& name) {
  return optionalPluginDirectory() + "/liblanes_" + name + ".so";
}

void exportPythonEnvironment() {
  ::setenv("LANES_PYTHON", pythonInterpreter().c_str(), 0);
  auto const root = pythonPackageRoot();
  if (root.empty()) return;
  char const* path = std::getenv("PYTHONPATH");
  ::setenv("PYTHONPATH", (path && *path ? root + ":" + path : root).c_str(), 1);
}

}  // namespace lanes::cli
