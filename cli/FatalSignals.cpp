#include "FatalSignals.h"

#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "StackTrace.h"
#include "StrayOutput.h"
#include "lanes/core/ReadingNote.h"
#include "lanes/core/RunningNote.h"
#include "lanes/core/detail/SignalSafeText.h"
#include "lanes/node/WorkerBoard.h"

namespace lanes::cli {

namespace {

using detail::appendText;
using detail::appendUnsigned;

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// What the line names first (reportFatalSignals' `who`) and whether a stack
// trace follows it; written before the handler is installed, read only by it.
char whoPrefix[64] = "";
bool stackTraces = true;

// The thread that reports a fatal signal: the first to take one. Another
// that takes one meanwhile waits for the report to end the process.
std::atomic<long> reporter{0};

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

long threadId() { return ::syscall(SYS_gettid); }

// Appends what the thread ran and read: "in module 'x' (plugin 'p', event,
// lane 0, event 1:1:5) on thread 4242", then, while it read a file, "while
// reading branch ... in 'f.root': the file is probably damaged".
void appendWhatRan(char* buffer, std::size_t size) {
  constexpr char kDamaged[] = ": the file is probably damaged";
  if (auto const* running = runningNow()) {
    appendText("in ", buffer, size);
    appendRunning(running, buffer, size);
    appendText(" ", buffer, size);
  }
  appendText("on thread ", buffer, size);
  appendUnsigned(static_cast<unsigned long>(threadId()), buffer, size);
  if (auto const& reading = readingNow(); reading.file) {
    appendText(" ", buffer, size);
    appendReading(reading, buffer, size - sizeof kDamaged + 1);  // room for the rest
    appendText(kDamaged, buffer, size);
  }
}

// A worker of a multi-process job leaves its line on the workers' board,
// for its parent to print naming it, and what ran as numbers, for the
// parent's report.
void leaveLastWords(node::LastWords const& board) {
  board.text[0] = '\0';
  appendWhatRan(board.text, board.size);
  node::CrashNote note;
  note.noted = 1;
  note.module = node::CrashNote::kNothing;
  note.reading = readingNow().file != nullptr;
  if (auto const* running = runningNow()) {
    note.module = running->runner->module;
    note.transition = static_cast<std::int32_t>(running->transition);
    note.lane = running->lane;
    note.hasEvent = running->event != nullptr;
    if (running->event) note.event = *running->event;
  }
  *board.crash = note;
}

void writeLine(int signal) {
  char line[1024] = "lanes: error: ";
  appendText(whoPrefix, line, sizeof line);
  appendText(signalName(signal), line, sizeof line);
  appendText(" ", line, sizeof line);
  appendWhatRan(line, sizeof line - 1);
  appendText("\n", line, sizeof line);
  writeAll(terminalFd(), line, std::strlen(line));
}

void* faultingInstruction(void* context) {
  auto const* machine = &static_cast<ucontext_t*>(context)->uc_mcontext;
#if defined(__x86_64__)
  return reinterpret_cast<void*>(machine->gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(machine->pc);
#else
  (void)machine;
  return nullptr;
#endif
}

void writeTrace(void* context) {
  char heading[128] = "lanes: ";
  appendText(whoPrefix, heading, sizeof heading);
  appendText("stack trace of thread ", heading, sizeof heading);
  appendUnsigned(static_cast<unsigned long>(threadId()), heading, sizeof heading);
  appendText(" (pid ", heading, sizeof heading);
  appendUnsigned(static_cast<unsigned long>(::getpid()), heading, sizeof heading);
  appendText("):\n", heading, sizeof heading);
  writeStackTrace(terminalFd(), heading, faultingInstruction(context));
}

void onFatalSignal(int signal, siginfo_t*, void* context) {
  int const savedErrno = errno;
  long const self = threadId();
  if (long none = 0; reporter.compare_exchange_strong(none, self)) {
    if (auto const board = node::workerLastWords(); board.text) {
      leaveLastWords(board);
    } else {
      writeLine(signal);
    }
    flushStrayOutputForCrash();  // what else the process said before it died
    if (stackTraces) writeTrace(context);
  } else if (none != self) {
    for (;;) ::pause();  // the reporting thread's signal ends the process
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
  char const* off = std::getenv("LANES_NO_STACKTRACE");
  stackTraces = !(off && std::strcmp(off, "1") == 0);
  if (stackTraces) prepareStackTraces();
  struct sigaction action {};
  action.sa_sigaction = &onFatalSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int signal : kFatalSignals) ::sigaction(signal, &action, nullptr);
  giveThreadSignalStack();
}

}  // namespace lanes::cli
