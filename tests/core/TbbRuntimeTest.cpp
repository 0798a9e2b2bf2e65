// DESIGN.md: exactly one oneTBB runtime per process; when the ROOT wheel is
// present, its libtbb is the one.

#include <gtest/gtest.h>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/version.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace {

// The files of every libtbb (not libtbbmalloc) mapped into this process.
std::set<std::string> loadedTbbRuntimes() {
  std::set<std::string> paths;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    auto const slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string const path = line.substr(slash);
    if (std::filesystem::path(path).filename().string().rfind("libtbb.so", 0) == 0) {
      paths.insert(std::filesystem::canonical(path).string());
    }
  }
  return paths;
}

TEST(TbbRuntimeTest, ExactlyOneRuntimeIsLoadedAndItIsRootsWhenPresent) {
  tbb::task_arena arena(2);
  arena.execute([] {});  // make sure the runtime is really in use
  auto const runtimes = loadedTbbRuntimes();
  ASSERT_EQ(runtimes.size(), 1u) << "several oneTBB runtimes are loaded";
  if (LANES_TBB_FROM_ROOT) {  // the build found the ROOT wheel and linked its runtime
    EXPECT_NE(runtimes.begin()->find("/site-packages/ROOT/lib/"), std::string::npos) << *runtimes.begin();
  }
  EXPECT_GE(TBB_runtime_interface_version(), TBB_INTERFACE_VERSION);  // never older than the headers
}

}  // namespace
