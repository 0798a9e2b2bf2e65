#include "lanes/core/TemporaryName.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>

namespace lanes {

namespace {
constexpr char const kPartial[] = ".partial-";
constexpr char const kOf[] = "-of-";

bool allDigits(std::string const& text) {
  return !text.empty() && text.size() < 10 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A part's role: "prefork" or "worker-N".
bool isRole(std::string const& text) {
  return text == "prefork" || (text.rfind("worker-", 0) == 0 && allDigits(text.substr(7)));
}

// Strips the last part name from the file name in `path` (partPath() put it
// between dots): a job part's "ROLE-of-PID", whose parent's pid it returns in
// `parent`, or, when `plain`, an MPI rank's "worker-N" (no parent to name).
bool stripPart(std::string& path, bool plain, std::optional<long>& parent) {
  auto const nameStart = path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1;
  for (auto dot = path.rfind('.'); dot != std::string::npos && dot > nameStart; dot = path.rfind('.', dot - 1)) {
    auto const end = std::min(path.find('.', dot + 1), path.size());
    auto const segment = path.substr(dot + 1, end - dot - 1);
    auto const of = segment.rfind(kOf);
    bool const jobPart = of != std::string::npos && isRole(segment.substr(0, of)) && allDigits(segment.substr(of + 4));
    if (!jobPart && !(plain && isRole(segment))) continue;
    if (jobPart) parent = std::stol(segment.substr(of + 4));
    path.erase(dot, end - dot);
    return true;
  }
  return false;
}

// The temporary files in `directory` whose writers are gone and that
// `wanted` accepts, as `prefix` + name.
template <typename Wanted>
std::vector<std::string> leftovers(std::string const& directory, std::string const& prefix, Wanted const& wanted) {
  std::vector<std::string> found;
  std::error_code ignored;
  for (auto const& entry : std::filesystem::directory_iterator(directory, ignored)) {
    auto const name = entry.path().filename().string();
    auto const temporary = parseTemporary(name);
    if (!temporary || !entry.is_regular_file(ignored) || !wanted(*temporary)) continue;
    if (std::none_of(temporary->writers.begin(), temporary->writers.end(), processAlive)) found.push_back(prefix + name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string directoryOf(std::string const& path) { return std::filesystem::path(path).parent_path().string(); }

}  // namespace

std::string partialPath(std::string const& path, long pid) { return path + kPartial + std::to_string(pid); }

std::string jobPartName(std::string const& part, long parent) { return part + kOf + std::to_string(parent); }

std::optional<TemporaryFile> parseTemporary(std::string const& path) {
  TemporaryFile file{path, {}};
  auto const at = path.rfind(kPartial);
  if (at != std::string::npos && at != 0 && path[at - 1] != '/' && allDigits(path.substr(at + sizeof kPartial - 1))) {
    file.writers.push_back(std::stol(path.substr(at + sizeof kPartial - 1)));
    file.target.erase(at);
  }
  std::optional<long> parent;
  stripPart(file.target, !file.writers.empty(), parent);
  if (parent) file.writers.push_back(*parent);
  if (file.writers.empty()) return std::nullopt;
  return file;
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

std::vector<std::string> leftoversIn(std::string const& directory) {
  return leftovers(directory, (std::filesystem::path(directory) / "").string(), [](TemporaryFile const&) { return true; });
}

std::vector<std::string> leftoversOf(std::string const& path) {
  auto const directory = directoryOf(path);
  auto const target = std::filesystem::path(path).filename().string();
  return leftovers(directory.empty() ? "." : directory, directory.empty() ? "" : directory + "/",
                   [&](TemporaryFile const& file) { return file.target == target; });
}

std::vector<std::string> partialsOf(std::string const& path) {
  auto const directory = directoryOf(path);
  auto const prefix = std::filesystem::path(path).filename().string() + kPartial;
  std::vector<std::string> found;
  std::error_code ignored;
  for (auto const& entry : std::filesystem::directory_iterator(directory.empty() ? "." : directory, ignored)) {
    auto const name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && allDigits(name.substr(prefix.size()))) {
      found.push_back(directory.empty() ? name : directory + "/" + name);
    }
  }
  return found;
}

}  // namespace lanes
