#include "StackTrace.h"

#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lanes/core/detail/SignalSafeText.h"

extern char** environ;

namespace lanes::cli {

namespace {

using detail::appendHex;
using detail::appendText;
using detail::appendUnsigned;

constexpr int kMaxFrames = 64;
constexpr int kMaxObjects = 32;
constexpr std::size_t kPathSize = 512;
constexpr int kAnswerSeconds = 10;  // for each object's answer from addr2line

char addr2line[kPathSize] = "";  // its path; "": not found, the frames are not symbolised

struct Frame {
  std::uintptr_t address;        // as the stack holds it: the faulting instruction, or a return address
  bool faulting;                 // the faulting instruction itself, not a return address
  int object;                    // index into Trace::objects; -1: in no file's mapping
  std::uintptr_t offset;         // of the instruction within its object, as addr2line takes it
  char const* answer;            // addr2line's line for it, in Trace::answers (not NUL-terminated); nullptr: none
  std::size_t answerLength;
};

// The trace being written: static, not on the (alternate) stack, as it is
// large; one thread at a time uses it.
struct Trace {
  Frame frames[kMaxFrames];
  int frameCount;
  char objects[kMaxObjects][kPathSize];
  int objectCount;
  char answers[64 * 1024];  // addr2line's answers, object after object
  std::size_t answersUsed;
  char offsets[kMaxFrames][24];  // addr2line's arguments
};
Trace trace;

void writeAll(int fd, char const* data, std::size_t size) {
  while (size > 0) {
    auto const n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void writeText(int fd, char const* text) { writeAll(fd, text, std::strlen(text)); }

// ---------------------------------------------------------------- where each frame lies

struct Mapping {
  std::uintptr_t start, end, offset;
  bool readable;
  char const* path;  // "" for an anonymous mapping
};

std::uintptr_t parseHex(char const*& p) {
  std::uintptr_t value = 0;
  for (;; ++p) {
    int const digit = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
    if (digit < 0) return value;
    value = value * 16 + static_cast<unsigned>(digit);
  }
}

void skipSpaces(char const*& p) {
  while (*p == ' ') ++p;
}

void skipField(char const*& p) {
  while (*p && *p != ' ') ++p;
  skipSpaces(p);
}

// "start-end perms offset dev inode   path", as /proc/self/maps writes it.
bool parseMapping(char const* line, Mapping& mapping) {
  char const* p = line;
  mapping.start = parseHex(p);
  if (*p++ != '-') return false;
  mapping.end = parseHex(p);
  skipSpaces(p);
  mapping.readable = *p == 'r';
  skipField(p);
  mapping.offset = parseHex(p);
  skipSpaces(p);
  skipField(p);  // the device
  skipField(p);  // the inode
  mapping.path = p;
  return true;
}

// Calls `onLine` with each line of /proc/self/maps (a longer line cut).
template <class OnLine>
void forEachMapping(OnLine const& onLine) {
  int const fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  static char chunk[4096];
  static char line[kPathSize + 128];
  std::size_t used = 0;
  for (;;) {
    auto const n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      if (chunk[i] != '\n') {
        if (used + 1 < sizeof line) line[used++] = chunk[i];
        continue;
      }
      line[used] = '\0';
      used = 0;
      Mapping mapping;
      if (parseMapping(line, mapping)) onLine(mapping);
    }
  }
  ::close(fd);
}

int objectIndex(char const* path) {
  for (int k = 0; k < trace.objectCount; ++k) {
    if (std::strcmp(trace.objects[k], path) == 0) return k;
  }
  if (trace.objectCount == kMaxObjects || std::strlen(path) >= kPathSize) return -1;
  std::strcpy(trace.objects[trace.objectCount], path);
  return trace.objectCount++;
}

// Each frame's object and its offset there. An object's addresses are
// relative to where it was loaded (its first mapping, of offset 0), but an
// executable that is not position-independent, whose addresses are absolute.
void locateFrames() {
  static char loadedPath[kPathSize];
  std::uintptr_t bias = 0;
  forEachMapping([&](Mapping const& mapping) {
    if (mapping.path[0] != '/') return;
    if (mapping.offset == 0 && std::strlen(mapping.path) < kPathSize) {
      std::strcpy(loadedPath, mapping.path);
      auto const* header = reinterpret_cast<ElfW(Ehdr) const*>(mapping.start);
      bool const absolute = mapping.readable && mapping.end - mapping.start >= sizeof *header &&
                            std::memcmp(header->e_ident, ELFMAG, SELFMAG) == 0 && header->e_type == ET_EXEC;
      bias = absolute ? 0 : mapping.start;
    }
    for (int i = 0; i < trace.frameCount; ++i) {
      auto& frame = trace.frames[i];
      // A return address is the instruction after the call: the call is the one before it.
      auto const instruction = frame.faulting ? frame.address : frame.address - 1;
      if (instruction < mapping.start || instruction >= mapping.end) continue;
      frame.object = objectIndex(mapping.path);
      bool const sameObject = std::strcmp(loadedPath, mapping.path) == 0;
      frame.offset = instruction - (sameObject ? bias : mapping.start - mapping.offset);
    }
  });
}

// ---------------------------------------------------------------- addr2line

// A fork without the C library's fork handlers (other threads may hold the
// locks they take): the child only execs.
pid_t rawFork() { return static_cast<pid_t>(::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)); }

long millisecondsNow() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000L + now.tv_nsec / 1'000'000;
}

// addr2line's output on `fd` into trace.answers, until it closes it or the time is up.
bool readAnswers(int fd) {
  auto const deadline = millisecondsNow() + kAnswerSeconds * 1000L;
  for (;;) {
    auto const left = deadline - millisecondsNow();
    if (left <= 0) return false;
    pollfd ready{fd, POLLIN, 0};
    auto const polled = ::poll(&ready, 1, static_cast<int>(left));
    if (polled < 0 && errno == EINTR) continue;
    if (polled <= 0) return false;
    auto const room = sizeof trace.answers - trace.answersUsed;
    if (room == 0) return true;
    auto const n = ::read(fd, trace.answers + trace.answersUsed, room);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    trace.answersUsed += static_cast<std::size_t>(n);
  }
}

// Gives each frame of object `k` addr2line's line for it: "function at file:line".
void symbolise(int k) {
  char const* argv[kMaxFrames + 8];
  int argc = 0;
  for (char const* option : {static_cast<char const*>(addr2line), "-C", "-f", "-p", "-e"}) argv[argc++] = option;
  argv[argc++] = trace.objects[k];
  for (int i = 0; i < trace.frameCount; ++i) {
    if (trace.frames[i].object != k) continue;
    trace.offsets[i][0] = '\0';
    appendHex(trace.frames[i].offset, trace.offsets[i], sizeof trace.offsets[i]);
    argv[argc++] = trace.offsets[i];
  }
  argv[argc] = nullptr;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return;
  auto const child = rawFork();
  if (child == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    int const null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDERR_FILENO);  // its complaints about the debug information
    ::execve(addr2line, const_cast<char* const*>(argv), environ);
    ::_exit(127);
  }
  ::close(out[1]);
  auto const first = trace.answersUsed;
  bool const complete = child > 0 && readAnswers(out[0]);
  ::close(out[0]);
  if (child < 0) return;
  if (!complete) ::kill(child, SIGKILL);
  while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  // One line an address, in the order given.
  char const* line = trace.answers + first;
  char const* const end = trace.answers + trace.answersUsed;
  for (int i = 0; i < trace.frameCount && line < end; ++i) {
    if (trace.frames[i].object != k) continue;
    auto const* newline = static_cast<char const*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)));
    if (!newline) break;  // cut short
    trace.frames[i].answer = line;
    trace.frames[i].answerLength = static_cast<std::size_t>(newline - line);
    line = newline + 1;
  }
}

// ---------------------------------------------------------------- the trace

char const* baseName(char const* path) {
  char const* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

void writeFrame(int fd, int number, Frame const& frame) {
  char line[256] = "  #";
  appendUnsigned(static_cast<unsigned>(number), line, sizeof line);
  appendText(number < 10 ? "   " : "  ", line, sizeof line);
  writeText(fd, line);
  bool const named = frame.answer && !(frame.answerLength >= 2 && std::memcmp(frame.answer, "??", 2) == 0);
  if (named) {
    writeAll(fd, frame.answer, frame.answerLength);
  } else {
    writeText(fd, "??");
  }
  line[0] = '\0';
  if (frame.object >= 0) {
    appendText(" (", line, sizeof line);
    appendText(baseName(trace.objects[frame.object]), line, sizeof line);
    appendText("+", line, sizeof line);
    appendHex(frame.offset, line, sizeof line);
    appendText(")\n", line, sizeof line);
  } else {
    appendText(" (", line, sizeof line);
    appendHex(frame.address, line, sizeof line);
    appendText(")\n", line, sizeof line);
  }
  writeText(fd, line);
}

std::string findOnPath(char const* program) {
  char const* path = std::getenv("PATH");
  std::string const directories = path ? path : "/usr/bin:/bin";
  for (std::size_t begin = 0; begin <= directories.size();) {
    auto end = directories.find(':', begin);
    if (end == std::string::npos) end = directories.size();
    auto const candidate = directories.substr(begin, end - begin) + "/" + program;
    begin = end + 1;
    if (candidate[0] == '/' && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace

void prepareStackTraces() {
  void* frame[1];
  ::backtrace(frame, 1);  // loads the unwinder now: the first call may allocate
  auto const found = findOnPath("addr2line");
  if (found.size() < sizeof addr2line) std::strcpy(addr2line, found.c_str());
}

void writeStackTrace(int fd, char const* heading, void const* faultingInstruction) {
  void* addresses[kMaxFrames];
  int const count = ::backtrace(addresses, kMaxFrames);
  int first = 0;
  while (first < count && addresses[first] != faultingInstruction) ++first;
  if (first == count) first = 0;  // not found: every frame, the handler's too
  trace.frameCount = 0;
  trace.objectCount = 0;
  trace.answersUsed = 0;
  for (int i = first; i < count; ++i) {
    auto const address = reinterpret_cast<std::uintptr_t>(addresses[i]);
    trace.frames[trace.frameCount++] = {address, addresses[i] == faultingInstruction, -1, 0, nullptr, 0};
  }
  locateFrames();
  if (addr2line[0]) {
    for (int k = 0; k < trace.objectCount; ++k) symbolise(k);
  }
  writeText(fd, heading);
  for (int i = 0; i < trace.frameCount; ++i) writeFrame(fd, i, trace.frames[i]);
}

}  // namespace lanes::cli
