#include "lanes/core/TemporaryName.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "lanes/core/Module.h"

namespace lanes {

namespace {
constexpr char const kPartial[] = ".partial-";

bool allDigits(std::string const& text) {
  return !text.empty() && text.size() < 10 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Whether `name` is partPath(target, "worker-N") for some N.
bool isWorkerPart(std::string const& name, std::string const& target) {
  auto const probe = partPath(target, "worker-#");
  auto const hash = probe.find('#');
  auto const prefix = probe.substr(0, hash), suffix = probe.substr(hash + 1);
  if (name.size() <= prefix.size() + suffix.size()) return false;
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  return allDigits(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
}
}  // namespace

std::string partialPath(std::string const& path, long pid) { return path + kPartial + std::to_string(pid); }

std::optional<PartialName> parsePartial(std::string const& path) {
  auto const at = path.rfind(kPartial);
  if (at == std::string::npos || at == 0 || path[at - 1] == '/') return std::nullopt;
  auto const digits = path.substr(at + sizeof kPartial - 1);
  if (!allDigits(digits)) return std::nullopt;
  return PartialName{path.substr(0, at), std::stol(digits)};
}

bool processAlive(long pid) {
  if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM)) return false;
  // A zombie is gone but for its exit status, which nobody collected yet.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  auto const end = line.rfind(") ");
  return end == std::string::npos || end + 2 >= line.size() || line[end + 2] != 'Z';
}

std::vector<std::string> stalePartials(std::string const& path) {
  namespace fs = std::filesystem;
  auto directory = fs::path(path).parent_path();
  auto const target = fs::path(path).filename().string();
  std::vector<std::string> stale;
  std::error_code ignored;
  for (auto const& entry : fs::directory_iterator(directory.empty() ? "." : directory, ignored)) {
    auto const partial = parsePartial(entry.path().filename().string());
    if (!partial || processAlive(partial->pid)) continue;
    if (partial->target == target || isWorkerPart(partial->target, target)) {
      stale.push_back((directory / entry.path().filename()).string());
    }
  }
  std::sort(stale.begin(), stale.end());
  return stale;
}

}  // namespace lanes
