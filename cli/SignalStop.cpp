#include "SignalStop.h"

#include <pthread.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace lanes::cli {

namespace {
// SIGUSR1 only wakes the waiter when the job is over.
constexpr int kWake = SIGUSR1;

// On a terminal the progress ticker owns the current line: start a new one.
void say(std::string text) {
  if (::isatty(STDERR_FILENO)) text.insert(0, "\n");
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, text.data(), text.size());
}
}  // namespace

SignalStop::SignalStop() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  sigaddset(&signals_, kWake);
  pthread_sigmask(SIG_BLOCK, &signals_, &previousMask_);
  waiter_ = std::thread([this] { waitForSignals(); });
}

SignalStop::~SignalStop() {
  closing_.store(true);
  pthread_kill(waiter_.native_handle(), kWake);
  waiter_.join();
  pthread_sigmask(SIG_SETMASK, &previousMask_, nullptr);
}

void SignalStop::attach(EventProcessor& processor) {
  processor_.store(&processor);
  if (signal_.load()) processor.requestStop();
}

void SignalStop::waitForSignals() {
  while (true) {
    int received = 0;
    if (sigwait(&signals_, &received) != 0) continue;
    if (received == kWake) {
      if (closing_.load()) return;
      continue;  // someone else's SIGUSR1: not ours to act on
    }
    if (signal_.exchange(received) != 0) {
      say("lanes: " + std::string(strsignal(received)) + " again: aborting\n");
      ::_exit(128 + received);
    }
    say("lanes: " + std::string(strsignal(received)) +
        ": finishing the events in flight, then writing the report (send it again to abort)\n");
    if (auto* processor = processor_.load()) processor->requestStop();
  }
}

}  // namespace lanes::cli
