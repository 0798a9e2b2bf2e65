#include "lanes/core/JobFiles.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "lanes/core/Exception.h"

namespace lanes {

namespace {

void addFiles(std::vector<JobFile>& files, PluginInfo const* info, Options const& options, std::string const& owner) {
  if (!info) return;
  for (auto const& [key, access] : info->files) {
    auto it = options.values().find(key);
    if (it == options.values().end()) continue;
    for (auto const& value : it->second) {
      if (value.empty()) continue;
      auto const use = owner + " (" + key + "=" + value + ")";
      files.push_back({value, access == FileAccess::Write, use});
      if (access == FileAccess::Write) continue;
      requireRegularInput(value, use);
      if (access != FileAccess::ReadList) continue;
      std::vector<std::string> listed;
      try {
        listed = readFileList(value);
      } catch (Exception const&) {
        // The source says so, naming its option, when it reads the list.
      }
      for (auto const& file : listed) {
        auto const listedUse = use + ", listed '" + file + "'";
        requireRegularInput(file, listedUse);
        files.push_back({file, false, listedUse});
      }
    }
  }
}

// Who a file is: its device and inode when it exists (a symlink or a hard
// link is the file it leads to), and its absolute path with every existing
// symlink resolved (a file not written yet).
struct Identity {
  std::optional<std::pair<dev_t, ino_t>> inode;
  std::filesystem::path path;

  explicit Identity(std::string const& name) {
    struct stat status {};
    if (::stat(name.c_str(), &status) == 0) inode = std::make_pair(status.st_dev, status.st_ino);
    std::error_code error;
    path = std::filesystem::weakly_canonical(std::filesystem::absolute(name, error), error);
    if (error) path = std::filesystem::absolute(name).lexically_normal();
  }

  bool operator==(Identity const& other) const {
    return (inode && other.inode) ? *inode == *other.inode : path == other.path;
  }
};

}  // namespace

void requireRegularInput(std::string const& path, std::string const& use) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0 || S_ISREG(status.st_mode) || S_ISDIR(status.st_mode)) return;
  auto const kind = S_ISFIFO(status.st_mode)  ? "a FIFO (a pipe)"
                    : S_ISSOCK(status.st_mode) ? "a socket"
                    : S_ISCHR(status.st_mode)  ? "a character device"
                    : S_ISBLK(status.st_mode)  ? "a block device"
                                               : "no file";
  throw Exception(use + ": '" + path + "' is " + kind + ", not a regular file: lanes reads its inputs from files");
}

std::vector<std::string> readFileList(std::string const& list) {
  std::ifstream in(list);
  if (!in) throw Exception("cannot read file list '" + list + "'");
  auto const base = std::filesystem::path(list).parent_path();
  std::vector<std::string> files;
  for (std::string line; std::getline(in, line);) {
    auto const first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    auto const last = line.find_last_not_of(" \t\r");
    std::filesystem::path path = line.substr(first, last - first + 1);
    files.push_back((path.is_relative() ? base / path : path).string());
  }
  return files;
}

std::vector<JobFile> jobFiles(JobConfig const& config, PluginRegistry const& registry) {
  std::vector<JobFile> files;
  addFiles(files, registry.findSource(config.source.name), config.source.options, "the source");
  for (auto const& waiter : config.waiters) {
    addFiles(files, registry.findModule(waiter.name), waiter.options, "waiter '" + waiter.name + "'");
  }
  for (auto const& module : config.modules) {
    addFiles(files, registry.findModule(module.plugin.name), module.plugin.options, "module '" + module.label + "'");
  }
  for (auto const& output : config.outputs) {
    addFiles(files, registry.findOutput(output.plugin.name), output.plugin.options, "output '" + output.label + "'");
  }
  return files;
}

void requireDistinctFiles(std::vector<JobFile> const& files) {
  std::vector<Identity> identities;
  for (auto const& file : files) identities.emplace_back(file.path);
  for (std::size_t a = 0; a < files.size(); ++a) {
    for (std::size_t b = a + 1; b < files.size(); ++b) {
      if (!(files[a].written || files[b].written) || !(identities[a] == identities[b])) continue;
      auto const& writer = files[a].written ? files[a] : files[b];
      auto const& other = files[a].written ? files[b] : files[a];
      throw Exception(writer.use + " and " + other.use + " are the same file: the job would " +
                      (other.written ? "write it twice" : "overwrite its own input") + "; give another path");
    }
  }
}

}  // namespace lanes
