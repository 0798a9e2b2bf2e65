#include "ScanCommand.h"

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "PythonTool.h"

namespace lanes::cli {

namespace {

// `python -m lanes.tools.scan --lanes SELF ARGS...`: every point runs this very build.
int execScanTool(std::vector<std::string> const& arguments) {
  std::error_code error;
  auto const self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    std::cerr << "lanes: error: scan cannot find its own binary: " << error.message() << "\n";
    return 2;
  }
  std::vector<std::string> words{"--lanes", self.string()};
  words.insert(words.end(), arguments.begin(), arguments.end());
  return execPythonTool("scan", words);
}

}  // namespace

void addScanCommand(CLI::App& app, int& exitCode) {
  auto* scan = addToolCommand(
      app, "scan", "Measure a grid of configurations (threads, outputs, any plugin option...): `lanes scan --help`");
  scan->callback([scan, &exitCode] { exitCode = execScanTool(scan->remaining()); });
}

}  // namespace lanes::cli
