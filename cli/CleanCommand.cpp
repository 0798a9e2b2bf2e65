#include "CleanCommand.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "lanes/core/Exception.h"
#include "lanes/core/TemporaryName.h"

namespace lanes::cli {

std::vector<std::string> outputFiles(JobConfig const& config) {
  std::vector<std::string> files;
  for (auto const& output : config.outputs) {
    if (auto file = output.plugin.options.getString("file")) files.push_back(*file);
  }
  return files;
}

void warnAboutStalePartials(std::vector<std::string> const& files) {
  for (auto const& file : files) {
    for (auto const& stale : stalePartials(file)) {
      std::cerr << "lanes: warning: '" << stale << "' is left from a job that was killed (process "
                << parsePartial(stale)->pid << " is gone); `lanes clean` removes it\n";
    }
  }
}

void removeOwnPartials(std::vector<std::string> const& files) {
  for (auto const& file : files) ::unlink(partialPath(file, ::getpid()).c_str());
}

namespace {

// The partial files in `directory` whose process is gone, sorted by name.
std::vector<std::filesystem::path> leftoversIn(std::string const& directory) {
  std::vector<std::filesystem::path> leftovers;
  for (auto const& entry : std::filesystem::directory_iterator(directory)) {
    auto const partial = parsePartial(entry.path().filename().string());
    if (partial && entry.is_regular_file() && !processAlive(partial->pid)) leftovers.push_back(entry.path());
  }
  std::sort(leftovers.begin(), leftovers.end());
  return leftovers;
}

int clean(std::string const& directory, bool dryRun) {
  if (!std::filesystem::is_directory(directory)) throw Exception("cannot clean '" + directory + "': not a directory");
  for (auto const& leftover : leftoversIn(directory)) {
    std::error_code error;
    if (!dryRun) std::filesystem::remove(leftover, error);
    if (error) {
      std::cerr << "lanes: error: cannot remove '" << leftover.string() << "': " << error.message() << "\n";
      return 1;
    }
    std::cout << (dryRun ? "would remove " : "removed ") << leftover.string() << "\n";
  }
  return 0;
}

}  // namespace

void addCleanCommand(CLI::App& app, int& exitCode) {
  auto* command = app.add_subcommand(
      "clean", "Remove the partial files (FILE.partial-PID) that jobs killed before they could finish left in DIR");
  auto directory = std::make_shared<std::string>();
  auto dryRun = std::make_shared<bool>(false);
  command->add_option("DIR", *directory, "The directory to clean")->required();
  command->add_flag("--dry-run", *dryRun, "Only list what would be removed");
  command->callback([directory, dryRun, &exitCode] { exitCode = clean(*directory, *dryRun); });
}

}  // namespace lanes::cli
