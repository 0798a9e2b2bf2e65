#include "CleanCommand.h"

#include <unistd.h>

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

namespace {

// "process 12 is gone" or "processes 12 and 34 are gone".
std::string goneWriters(std::string const& path) {
  auto const writers = parseTemporary(path)->writers;
  std::string text = writers.size() == 1 ? "process " : "processes ";
  for (std::size_t k = 0; k < writers.size(); ++k) text += (k ? " and " : "") + std::to_string(writers[k]);
  return text + (writers.size() == 1 ? " is gone" : " are gone");
}

}  // namespace

void warnAboutStalePartials(std::vector<std::string> const& files) {
  for (auto const& file : files) {
    for (auto const& stale : leftoversOf(file)) {
      std::cerr << "lanes: warning: '" << stale << "' is left from a job that was killed (" << goneWriters(stale)
                << "); `lanes clean` removes it\n";
    }
  }
}

void removeOwnPartials(std::vector<std::string> const& files) {
  for (auto const& file : files) ::unlink(partialPath(file, ::getpid()).c_str());
}

namespace {

int clean(std::string const& directory, bool dryRun) {
  if (!std::filesystem::is_directory(directory)) throw Exception("cannot clean '" + directory + "': not a directory");
  for (auto const& leftover : leftoversIn(directory)) {
    std::error_code error;
    if (!dryRun) std::filesystem::remove(leftover, error);
    if (error) {
      std::cerr << "lanes: error: cannot remove '" << leftover << "': " << error.message() << "\n";
      return 1;
    }
    std::cout << (dryRun ? "would remove " : "removed ") << leftover << "\n";
  }
  return 0;
}

}  // namespace

void addCleanCommand(CLI::App& app, int& exitCode) {
  auto* command = app.add_subcommand(
      "clean",
      "Remove what jobs killed before they could finish left in DIR: partial files (FILE.partial-PID) and the parts "
      "of multi-process jobs (FILE.worker-N-of-PARENT...) whose processes are gone");
  auto directory = std::make_shared<std::string>();
  auto dryRun = std::make_shared<bool>(false);
  command->add_option("DIR", *directory, "The directory to clean")->required();
  command->add_flag("--dry-run", *dryRun, "Only list what would be removed");
  command->callback([directory, dryRun, &exitCode] { exitCode = clean(*directory, *dryRun); });
}

}  // namespace lanes::cli
