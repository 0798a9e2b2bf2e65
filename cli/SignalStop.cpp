#include "SignalStop.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "StrayOutput.h"
#include "lanes/monitor/Watchdog.h"

namespace lanes::cli {

namespace {
// SIGUSR1 only wakes the waiter when the job is over.
constexpr int kWake = SIGUSR1;

// Whether a SignalStop takes the stop signals (see sigaction() below).
std::atomic<bool> stopSignalsTaken{false};

// On a terminal the progress ticker owns the current line: start a new one.
void say(std::string text) {
  if (::isatty(terminalFd())) text.insert(0, "\n");
  [[maybe_unused]] auto n = ::write(terminalFd(), text.data(), text.size());
}
}  // namespace

SignalStop::SignalStop(Role role) : role_(role) {
  stopSignalsTaken.store(true);
  sigemptyset(&signals_);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals_, signal);
  sigaddset(&signals_, kWake);
  pthread_sigmask(SIG_BLOCK, &signals_, &previousMask_);
  waiter_ = std::thread([this] { waitForSignals(); });
}

SignalStop::~SignalStop() {
  closing_.store(true);
  pthread_kill(waiter_.native_handle(), kWake);
  waiter_.join();
  pthread_sigmask(SIG_SETMASK, &previousMask_, nullptr);
  stopSignalsTaken.store(false);
}

void SignalStop::attach(EventProcessor& processor) {
  processor_.store(&processor);
  if (signal_.load()) processor.requestStop();
}

void SignalStop::abort(int status) {
  if (processor_.load() && cleanup_) cleanup_();
  drainStrayOutput();  // lanes' lines still on their way to the terminal
  ::_exit(status);
}

void SignalStop::waitForSignals() {
  while (true) {
    int received = 0;
    if (sigwait(&signals_, &received) != 0) continue;
    if (received == kWake) {
      if (closing_.load()) return;
      continue;  // someone else's SIGUSR1: not ours to act on
    }
    int const earlier = signal_.exchange(received);
    if (earlier != 0 && role_ == Role::Worker) {
      signal_.store(earlier);  // the same stop, heard twice
      continue;
    }
    if (earlier != 0) {
      say("lanes: " + std::string(strsignal(received)) + " again: aborting\n");
      if (auto* processor = processor_.load()) {
        for (auto const& activity : processor->laneActivity()) {
          if (activity.busy) say("lanes: still running: " + describeActivity(activity, processor->info()) + "\n");
        }
      }
      abort(128 + received);
    }
    say("lanes: " + std::string(strsignal(received)) +
        ": finishing the events in flight, then writing the report (send it again to abort)\n");
    if (auto* processor = processor_.load()) processor->requestStop();
  }
}

}  // namespace lanes::cli

// ROOT's TFile::WriteBuffer sets SIGINT to "ignored" around every write and
// back afterwards (TSystem::IgnoreInterrupt), so that Ctrl-C cannot cut a
// record in half. But making a signal ignored discards it if it is pending,
// even while blocked, which is how SignalStop keeps SIGINT for sigwait(): a
// Ctrl-C that arrives while any output writes would be lost, and the job
// would run on. While a SignalStop takes the stop signals no write can be
// interrupted anyway (they are blocked in every thread), so requests to
// ignore them change nothing. This definition takes the place of the C
// library's for the libraries the executable loads (ROOT's included).
extern "C" int sigaction(int signal, struct sigaction const* action, struct sigaction* previous) {
  using Sigaction = int (*)(int, struct sigaction const*, struct sigaction*);
  static auto const libc = reinterpret_cast<Sigaction>(::dlsym(RTLD_NEXT, "sigaction"));
  bool const stopSignal = signal == SIGINT || signal == SIGTERM || signal == SIGHUP;
  if (action && action->sa_handler == SIG_IGN && stopSignal && lanes::cli::stopSignalsTaken.load()) {
    return libc(signal, nullptr, previous);  // reports the current action, changes nothing
  }
  return libc(signal, action, previous);
}

