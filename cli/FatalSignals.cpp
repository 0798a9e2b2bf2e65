#include "FatalSignals.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "lanes/core/ReadingNote.h"
#include "lanes/node/WorkerBoard.h"

namespace lanes::cli {

namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// What the line names first (reportFatalSignals' `who`); written before the
// handler is installed, read only by it.
char whoPrefix[64] = "";

// "signal 11 (Segmentation fault)": strsignal() is not async-signal-safe.
char const* signalName(int signal) {
  switch (signal) {
    case SIGSEGV: return "signal 11 (Segmentation fault)";
    case SIGBUS: return "signal 7 (Bus error)";
    case SIGFPE: return "signal 8 (Floating point exception)";
    case SIGILL: return "signal 4 (Illegal instruction)";
    case SIGABRT: return "signal 6 (Aborted)";
  }
  return "a fatal signal";
}
static_assert(SIGSEGV == 11 && SIGBUS == 7 && SIGFPE == 8 && SIGILL == 4 && SIGABRT == 6, "Linux's numbers, as the names say");

void writeAll(int fd, char const* data, std::size_t size) {
  while (size > 0) {
    auto const n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

// Appends what fits of `text` to the NUL-terminated `buffer` of `size` bytes.
void add(char* buffer, std::size_t size, char const* text) {
  std::strncat(buffer, text, size - std::strlen(buffer) - 1);
}

void onFatalSignal(int signal, siginfo_t*, void*) {
  int const savedErrno = errno;
  constexpr char kDamaged[] = ": the file is probably damaged";
  auto const& note = readingNow();
  if (auto const board = node::workerLastWords(); note.file && board.text) {
    board.text[0] = '\0';  // the parent prints it, naming this worker
    appendReading(note, board.text, board.size);
    add(board.text, board.size, kDamaged);
  } else if (note.file) {
    char line[1024] = "lanes: error: ";
    add(line, sizeof line, whoPrefix);
    add(line, sizeof line, signalName(signal));
    add(line, sizeof line, " ");
    appendReading(note, line, sizeof line - sizeof kDamaged - 1);  // room for the rest
    add(line, sizeof line, kDamaged);
    add(line, sizeof line, "\n");
    writeAll(STDERR_FILENO, line, std::strlen(line));
  }
  // SA_RESETHAND made the action the default: the signal, raised again,
  // ends the process as it would have without this handler once it returns.
  ::raise(signal);
  errno = savedErrno;
}

// The calling thread's alternate stack, released when the thread ends.
struct SignalStack {
  ~SignalStack() {
    if (!memory) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
    delete[] memory;
  }
  char* memory = nullptr;
};

}  // namespace

void giveThreadSignalStack() {
  thread_local SignalStack stack;
  if (stack.memory) return;
  auto const size = std::max<std::size_t>(64 * 1024, static_cast<std::size_t>(::sysconf(_SC_MINSIGSTKSZ)) * 4);
  stack.memory = new char[size];
  stack_t alternate{};
  alternate.ss_sp = stack.memory;
  alternate.ss_size = size;
  ::sigaltstack(&alternate, nullptr);
}

void reportFatalSignals(std::string const& who) {
  if (!who.empty()) std::strncpy(whoPrefix, who.c_str(), sizeof whoPrefix - 1);
  struct sigaction action {};
  action.sa_sigaction = &onFatalSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int signal : kFatalSignals) ::sigaction(signal, &action, nullptr);
  giveThreadSignalStack();
}

}  // namespace lanes::cli
