#include "lanes/core/PathClaim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "lanes/core/Exception.h"
#include "lanes/core/TemporaryName.h"

namespace lanes {

namespace {

namespace fs = std::filesystem;

constexpr char const kClaimSuffix[] = ".lanes-claim";
constexpr char const kHeader[] = "lanes-claim 1";
constexpr char const kWriting[] = "writing";
constexpr char const kLeft[] = "left";

// A holder takes the lock, then writes its line: a job that finds the lock
// taken a moment before may read no live line yet, and looks again.
constexpr auto kHolderPause = std::chrono::milliseconds(2);
constexpr int kHolderLooks = 1000;

struct Line {
  std::string state;  // kWriting or kLeft
  ClaimWriter writer;
};

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::string errnoText(int error) { return std::strerror(error); }

// The claim file's lines, or nullopt if it is not a claim file (another
// program's file under the name).
std::optional<std::vector<Line>> readLines(int fd) {
  std::string text;
  char buffer[4096];
  for (off_t offset = 0;;) {
    auto const n = ::pread(fd, buffer, sizeof buffer, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    offset += n;
  }
  std::vector<Line> lines;
  if (text.empty()) return lines;  // new, or its holder has not written yet
  std::istringstream in(text);
  std::string header;
  if (!std::getline(in, header) || header != kHeader) return std::nullopt;
  for (std::string row; std::getline(in, row);) {
    std::istringstream fields(row);
    Line line;
    if (!(fields >> line.state >> line.writer.pid >> line.writer.host >> line.writer.started >> line.writer.ranks)) continue;
    if (line.state == kWriting || line.state == kLeft) lines.push_back(std::move(line));
  }
  return lines;
}

// Replaces the claim file's content; false (errno set) if a write failed.
bool writeLines(int fd, std::vector<Line> const& lines) {
  std::string text = std::string(kHeader) + "\n";
  for (auto const& line : lines) {
    auto const& w = line.writer;
    text += line.state + " " + std::to_string(w.pid) + " " + w.host + " " + std::to_string(w.started) + " " +
            std::to_string(w.ranks) + "\n";
  }
  if (::ftruncate(fd, 0) != 0) return false;
  for (std::size_t done = 0; done < text.size();) {
    auto const n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return ::fsync(fd) == 0 || errno == EINVAL;
}

bool sameWriter(ClaimWriter const& a, ClaimWriter const& b) {
  return a.pid == b.pid && a.host == b.host && a.started == b.started;
}

// The files `writer` left of the file named `target` in `directory`
// (regular files only: a symlink is never followed, nor removed), sorted.
std::vector<std::string> leftoversOf(fs::path const& directory, std::string const& target, ClaimWriter const& writer) {
  std::vector<std::string> found;
  std::error_code error;
  for (auto const& entry : fs::directory_iterator(directory.empty() ? fs::path(".") : directory, error)) {
    auto const name = entry.path().filename().string();
    auto const file = parseTemporary(name);
    if (!file || file->target != target || !entry.is_regular_file(error) || entry.is_symlink(error)) continue;
    bool const written = std::find(file->writers.begin(), file->writers.end(), writer.pid) != file->writers.end();
    if (written || (writer.ranks > 0 && file->rankPart)) found.push_back((directory / name).string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// As `path` names it: empty for the working directory.
fs::path directoryOf(std::string const& path) { return fs::path(path).parent_path(); }

// Whether `fd` is the file at `path` now (nobody removed or replaced it).
bool stillAt(int fd, std::string const& path) {
  struct stat opened {}, named {};
  return ::fstat(fd, &opened) == 0 && ::lstat(path.c_str(), &named) == 0 && opened.st_dev == named.st_dev &&
         opened.st_ino == named.st_ino;
}

// An open claim file: locked by us, or held by another process.
struct Opened {
  int fd = -1;
  bool locked = false;
};

// Opens the claim file `file` (creating it if `create`) and tries its lock
// once. A claim file removed between the open and the lock (its holder
// released it) is opened again. Throws naming `path` if it cannot be opened.
Opened openClaimFile(std::string const& file, std::string const& path, bool create) {
  for (;;) {
    int const fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0644);
    if (fd < 0) {
      throw Exception("cannot claim '" + path + "' for this job: cannot open its claim file '" + file +
                      "': " + errnoText(errno));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int const error = errno;
      if (error == EWOULDBLOCK) return {fd, false};
      ::close(fd);
      throw Exception("cannot claim '" + path + "' for this job: cannot lock its claim file '" + file +
                      "': " + errnoText(error));
    }
    if (stillAt(fd, file)) return {fd, true};
    ::close(fd);
  }
}

// The live writer a held claim file names: its last writing line, unless
// that names a process of this host that is gone (a killed job's line,
// which the holder has not replaced with its own yet).
std::optional<ClaimWriter> liveWriter(int fd, std::string const& host) {
  auto const lines = readLines(fd);
  if (!lines) return std::nullopt;
  for (auto it = lines->rbegin(); it != lines->rend(); ++it) {
    if (it->state != kWriting) continue;
    if (it->writer.host != host || processAlive(it->writer.pid)) return it->writer;
    return std::nullopt;
  }
  return std::nullopt;
}

struct Held {
  std::string key;  // the absolute path
  std::string path;
  std::string file;
  std::string use;
  int fd = -1;
  ClaimWriter self;
};

// The process's claims. Thread-safe (see the header).
class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }

  ~Registry() { release(); }

  std::vector<Leftover> take(std::string const& path, std::string const& use, unsigned ranks) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (owner_ != ::getpid()) forget();
    ClaimWriter self{::getpid(), hostName(), static_cast<std::int64_t>(std::time(nullptr)), ranks};
    auto const directory = directoryOf(path);
    std::error_code missing;
    if (!directory.empty() && !fs::is_directory(directory, missing)) {
      throw Exception("cannot write " + use + ": directory '" + directory.string() + "' does not exist");
    }
    auto const file = claimFileOf(path);
    int const fd = lockFor(file, path, use);
    auto const lines = readLines(fd);
    if (!lines) {
      ::close(fd);
      throw Exception("cannot claim " + use + " for this job: '" + file +
                      "' is not a lanes claim file: remove it, or give another path");
    }
    // The lock was free: every writer named is gone. Those whose files are
    // still there stay named, so that `lanes clean` knows the files for theirs.
    std::vector<Line> kept;
    std::vector<Leftover> leftovers;
    auto const target = fs::path(path).filename().string();
    for (auto const& line : *lines) {
      auto const files = leftoversOf(directory, target, line.writer);
      if (files.empty()) continue;
      kept.push_back({kLeft, line.writer});
      for (auto const& left : files) leftovers.push_back({left, line.writer});
    }
    kept.push_back({kWriting, self});
    if (!writeLines(fd, kept)) {
      int const error = errno;
      if (lines->empty()) ::unlink(file.c_str());  // ours, and it names nobody: leave nothing behind
      ::close(fd);
      throw Exception("cannot claim " + use + " for this job: cannot write its claim file '" + file +
                      "': " + errnoText(error));
    }
    held_.push_back({keyOf(path), path, file, use, fd, self});
    return leftovers;
  }

  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (owner_ != ::getpid()) return forget();
    for (auto& held : held_) {
      auto lines = readLines(held.fd).value_or(std::vector<Line>{});
      std::vector<Line> kept;
      auto const directory = directoryOf(held.path);
      auto const target = fs::path(held.path).filename().string();
      for (auto& line : lines) {
        if (line.state == kWriting && sameWriter(line.writer, held.self)) continue;
        if (!leftoversOf(directory, target, line.writer).empty()) kept.push_back({kLeft, line.writer});
      }
      // Unlinked while locked: a job that opened it meanwhile finds it gone
      // once it has the lock, and opens the path again. A claim file that
      // cannot be rewritten keeps our line, which names a process that is
      // gone by the time anyone reads it: as if we had been killed.
      if (stillAt(held.fd, held.file)) {
        if (kept.empty()) {
          ::unlink(held.file.c_str());
        } else {
          writeLines(held.fd, kept);
        }
      }
      ::close(held.fd);
    }
    held_.clear();
  }

  bool commit(std::string const& temporary, std::string const& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (owner_ != ::getpid()) forget();
    auto const key = keyOf(path);
    auto held = std::find_if(held_.begin(), held_.end(), [&](Held const& h) { return h.key == key; });
    if (held != held_.end() && !stillAt(held->fd, held->file)) reclaim(*held);
    struct stat existing {};
    bool const replaced = ::lstat(path.c_str(), &existing) == 0;
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
      throw Exception("cannot write '" + path + "': cannot rename '" + temporary + "' to it: " + errnoText(errno));
    }
    return replaced;
  }

  // In a forked child: the parent's claims are the parent's. Only closes
  // descriptors (async-signal-safe); the child forgets the rest on first use.
  void closeInherited() {
    for (auto const& held : held_) ::close(held.fd);
  }

 private:
  Registry() : owner_(::getpid()) {
    ::pthread_atfork(nullptr, nullptr, [] { Registry::instance().closeInherited(); });
  }

  static std::string keyOf(std::string const& path) { return fs::absolute(path).lexically_normal().string(); }

  // The locked claim file `file`, or the refusal that names its live holder.
  static int lockFor(std::string const& file, std::string const& path, std::string const& use) {
    auto const host = hostName();
    for (int look = 0;; ++look) {
      auto const opened = openClaimFile(file, path, true);
      if (opened.locked) return opened.fd;
      auto const holder = liveWriter(opened.fd, host);
      ::close(opened.fd);
      if (holder || look == kHolderLooks) {
        throw Exception(use + " is being written by another lanes job (" +
                        (holder ? holder->describe() : "its claim file '" + file + "' names none that runs here") +
                        "): wait for it to end, or give another path");
      }
      std::this_thread::sleep_for(kHolderPause);
    }
  }

  // Our claim file was removed while the job ran: claim the path again,
  // unless another job did meanwhile.
  static void reclaim(Held& held) {
    auto const opened = openClaimFile(held.file, held.path, true);
    if (!opened.locked) {
      auto const holder = liveWriter(opened.fd, held.self.host);
      ::close(opened.fd);
      throw Exception("cannot write '" + held.path + "': its claim file '" + held.file +
                      "' was removed while this job ran, and another lanes job (" +
                      (holder ? holder->describe() : "unknown") + ") claimed the path since");
    }
    if (!writeLines(opened.fd, {{kWriting, held.self}})) {
      int const error = errno;
      ::close(opened.fd);
      throw Exception("cannot write '" + held.path + "': cannot write its claim file '" + held.file +
                      "' again: " + errnoText(error));
    }
    ::close(held.fd);
    held.fd = opened.fd;
  }

  void forget() {
    held_.clear();
    owner_ = ::getpid();
  }

  std::mutex mutex_;
  std::vector<Held> held_;
  long owner_;
};

}  // namespace

std::string claimFileOf(std::string const& path) { return path + kClaimSuffix; }

std::string ClaimWriter::describe() const {
  std::time_t const time = static_cast<std::time_t>(started);
  std::tm local {};
  char when[32] = "?";
  if (::localtime_r(&time, &local)) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &local);
  return "pid " + std::to_string(pid) + " on host " + host + ", started " + when;
}

std::vector<Leftover> claim(std::string const& path, std::string const& use, unsigned ranks) {
  return Registry::instance().take(path, use, ranks);
}

void releaseClaims() { Registry::instance().release(); }

bool commitFile(std::string const& temporary, std::string const& path) {
  return Registry::instance().commit(temporary, path);
}

void cleanDirectory(std::string const& directory, bool remove,
                    std::function<void(std::string const& path, std::uintmax_t bytes)> const& each) {
  std::vector<fs::path> claims;
  std::error_code error;
  for (auto const& entry : fs::directory_iterator(directory, error)) {
    auto const name = entry.path().filename().string();
    bool const named = name.size() > sizeof kClaimSuffix - 1 &&
                       name.compare(name.size() - (sizeof kClaimSuffix - 1), std::string::npos, kClaimSuffix) == 0;
    if (named && entry.is_regular_file(error) && !entry.is_symlink(error)) claims.push_back(entry.path());
  }
  if (error) throw Exception("cannot clean '" + directory + "': " + error.message());
  std::sort(claims.begin(), claims.end());
  auto const removeFile = [&](std::string const& path) {
    struct stat status {};
    if (::lstat(path.c_str(), &status) != 0) return;
    each(path, static_cast<std::uintmax_t>(status.st_size));
    if (remove && ::unlink(path.c_str()) != 0) throw Exception("cannot remove '" + path + "': " + errnoText(errno));
  };
  for (auto const& claimFile : claims) {
    auto const file = claimFile.string();
    auto const path = file.substr(0, file.size() - (sizeof kClaimSuffix - 1));
    Opened opened;
    try {
      opened = openClaimFile(file, path, false);
    } catch (Exception const&) {
      continue;  // removed meanwhile by its last holder
    }
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } const closer{opened.fd};
    auto const lines = readLines(opened.fd);
    if (!opened.locked || !lines) continue;  // a live job's, or not a claim file
    std::vector<std::string> leftovers;
    for (auto const& line : *lines) {
      auto const files = leftoversOf(claimFile.parent_path(), fs::path(path).filename().string(), line.writer);
      leftovers.insert(leftovers.end(), files.begin(), files.end());
    }
    std::sort(leftovers.begin(), leftovers.end());
    leftovers.erase(std::unique(leftovers.begin(), leftovers.end()), leftovers.end());
    for (auto const& leftover : leftovers) removeFile(leftover);
    removeFile(file);  // still locked: a job that opened it meanwhile opens the path again
  }
}

}  // namespace lanes
