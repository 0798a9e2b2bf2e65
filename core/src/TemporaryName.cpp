#include "lanes/core/TemporaryName.h"

#include <signal.h>

#include <algorithm>
#include <cctype>
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
// `parent`, or an MPI rank's "worker-N" (no parent to name).
bool stripPart(std::string& path, std::optional<long>& parent) {
  auto const nameStart = path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1;
  for (auto dot = path.rfind('.'); dot != std::string::npos && dot > nameStart; dot = path.rfind('.', dot - 1)) {
    auto const end = std::min(path.find('.', dot + 1), path.size());
    auto const segment = path.substr(dot + 1, end - dot - 1);
    auto const of = segment.rfind(kOf);
    bool const jobPart = of != std::string::npos && isRole(segment.substr(0, of)) && allDigits(segment.substr(of + 4));
    bool const rankPart = segment.rfind("worker-", 0) == 0 && allDigits(segment.substr(7));
    if (!jobPart && !rankPart) continue;
    if (jobPart) parent = std::stol(segment.substr(of + 4));
    path.erase(dot, end - dot);
    return true;
  }
  return false;
}

std::string directoryOf(std::string const& path) { return std::filesystem::path(path).parent_path().string(); }

// The digits that end a partial file's name: "123" of ".partial-123" or of a
// helper's ".partial-123.tmp"; empty if it has none.
std::string writerDigits(std::string const& tail) {
  auto const dot = tail.find('.');
  auto const digits = tail.substr(0, dot);
  if (!allDigits(digits)) return {};
  if (dot != std::string::npos) {
    auto const extension = tail.substr(dot + 1);
    auto const alphanumeric = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    if (extension.empty() || !std::all_of(extension.begin(), extension.end(), alphanumeric)) return {};
  }
  return digits;
}

}  // namespace

std::string partialPath(std::string const& path, long pid) { return path + kPartial + std::to_string(pid); }

std::string jobPartName(std::string const& part, long parent) { return part + kOf + std::to_string(parent); }

std::optional<TemporaryFile> parseTemporary(std::string const& path) {
  TemporaryFile file{path, {}};
  auto const at = path.rfind(kPartial);
  if (at != std::string::npos && at != 0 && path[at - 1] != '/') {
    auto const digits = writerDigits(path.substr(at + sizeof kPartial - 1));
    if (!digits.empty()) {
      file.writers.push_back(std::stol(digits));
      file.target.erase(at);
    }
  }
  std::optional<long> parent;
  bool const part = stripPart(file.target, parent);
  if (parent) file.writers.push_back(*parent);
  file.rankPart = part && !parent;
  if (file.writers.empty() && !file.rankPart) return std::nullopt;
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
