#include "ScanCommand.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace lanes::cli {

namespace {

constexpr char const* kPython = LANES_SOURCE_DIR "/.venv/bin/python";
constexpr char const* kTool = LANES_SOURCE_DIR "/tools/scan.py";

// Replaces this process with `python tools/scan.py --lanes SELF ARGS...`, so
// that signals and the exit status are the tool's own. Returns only on failure.
int execScanTool(std::vector<std::string> const& arguments) {
  if (::access(kPython, X_OK) != 0) {
    std::cerr << "lanes: error: scan needs the project's Python environment (" << kPython
              << " is missing): run scripts/setup\n";
    return 2;
  }
  std::error_code error;
  auto const self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    std::cerr << "lanes: error: scan cannot find its own binary: " << error.message() << "\n";
    return 2;
  }
  std::vector<std::string> words{kPython, kTool, "--lanes", self.string()};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::execv(kPython, argv.data());
  std::cerr << "lanes: error: cannot start " << kPython << ": " << std::strerror(errno) << "\n";
  return 2;
}

}  // namespace

void addScanCommand(CLI::App& app, int& exitCode) {
  auto* scan = app.add_subcommand(
      "scan", "Measure a grid of configurations (threads, outputs, any plugin option...): `lanes scan --help`");
  // Every argument, --help included, is the Python tool's to parse.
  scan->set_help_flag();
  scan->allow_extras();
  scan->prefix_command();
  scan->callback([scan, &exitCode] { exitCode = execScanTool(scan->remaining()); });
}

}  // namespace lanes::cli
