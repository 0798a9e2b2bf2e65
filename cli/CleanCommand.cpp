#include "CleanCommand.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "lanes/core/Exception.h"
#include "lanes/core/PathClaim.h"
#include "lanes/core/TemporaryName.h"

namespace lanes::cli {

std::vector<std::string> outputFiles(JobConfig const& config) {
  std::vector<std::string> files;
  for (auto const& output : config.outputs) {
    if (auto file = output.plugin.options.getString("file")) files.push_back(*file);
  }
  return files;
}

void claimJobFiles(std::vector<JobFile> const& files, unsigned ranks) {
  for (auto const& file : files) {
    if (!file.written) continue;
    for (auto const& leftover : claim(file.path, file.use, ranks)) {
      auto const directory = std::filesystem::path(file.path).parent_path();
      std::cerr << "lanes: warning: '" << leftover.path << "' is left from a job that was killed (process "
                << leftover.writer.pid << " is gone); `lanes clean " << (directory.empty() ? "." : directory.string())
                << " --yes` removes it\n";
    }
  }
}

void removeOwnPartials(std::vector<std::string> const& files) {
  for (auto const& file : files) ::unlink(partialPath(file, ::getpid()).c_str());
}

namespace {

// "12 bytes", "3.4 MB": a file's size as the listing gives it.
std::string sizeText(std::uintmax_t bytes) {
  char text[32];
  if (bytes < 1000) {
    std::snprintf(text, sizeof text, "%ju bytes", bytes);
  } else {
    auto const units = bytes < 1000000 ? "kB" : bytes < 1000000000 ? "MB" : "GB";
    auto const scale = bytes < 1000000 ? 1e3 : bytes < 1000000000 ? 1e6 : 1e9;
    std::snprintf(text, sizeof text, "%.1f %s", static_cast<double>(bytes) / scale, units);
  }
  return text;
}

int clean(std::string const& directory, bool remove) {
  if (!std::filesystem::is_directory(directory)) throw Exception("cannot clean '" + directory + "': not a directory");
  std::uintmax_t files = 0, total = 0;
  cleanDirectory(directory, remove, [&](std::string const& path, std::uintmax_t bytes) {
    std::cout << (remove ? "removed " : "would remove ") << path << " (" << sizeText(bytes) << ")\n";
    ++files;
    total += bytes;
  });
  if (!remove && files) std::cout << files << " files, " << sizeText(total) << ": `lanes clean " << directory << " --yes` removes them\n";
  return 0;
}

}  // namespace

void addCleanCommand(CLI::App& app, int& exitCode) {
  auto* command = app.add_subcommand(
      "clean",
      "List what jobs killed before they could finish left in DIR, and with --yes remove it: the partial files "
      "(FILE.partial-PID) and the parts of multi-process jobs (FILE.worker-N-of-PARENT...) that a claim file "
      "(FILE.lanes-claim) proves lanes wrote, and the claim files; nothing a live job writes, and nothing else");
  auto directory = std::make_shared<std::string>();
  auto yes = std::make_shared<bool>(false);
  command->add_option("DIR", *directory, "The directory to clean")->required();
  command->add_flag("--yes", *yes, "Remove what is listed (without it, only list)");
  command->callback([directory, yes, &exitCode] { exitCode = clean(*directory, *yes); });
}

}  // namespace lanes::cli
