#include "StrayOutput.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string_view>
#include <thread>

#include "lanes/core/Exception.h"

namespace lanes::cli {

namespace {

constexpr std::size_t kQuoted = 4;        // lines StrayLines::first holds at most
constexpr std::size_t kLineMost = 1024;   // bytes kept of a line (printableLine() may make it longer)

// Reads the pipe that fd 2 has become: passes lanes' own lines on, keeps the others.
class Capture {
 public:
  Capture(int terminal, int pipeRead) : terminal_(terminal), pipe_(pipeRead) {}

  // The reading thread's loop; it runs until the process ends.
  void read() {
    char chunk[4096];
    for (;;) {
      pollfd ready{pipe_, POLLIN, 0};
      if (::poll(&ready, 1, -1) < 0 && errno != EINTR) return;
      {
        std::lock_guard lock(mutex_);
        busy_ = true;
      }
      ssize_t n;
      while ((n = ::read(pipe_, chunk, sizeof chunk)) > 0) take(chunk, static_cast<std::size_t>(n));
      {
        std::lock_guard lock(mutex_);
        busy_ = false;
      }
      done_.notify_all();
      if (n == 0) return;  // every writer closed it
    }
  }

  void drain() {
    std::unique_lock lock(mutex_);
    // The reader marks itself busy before it reads; once nothing is left
    // unread and it is not busy, every earlier byte has been handled.
    while (busy_ || unread() > 0) done_.wait_for(lock, std::chrono::milliseconds(20));
  }

  StrayLines lines() {
    std::lock_guard lock(mutex_);
    StrayLines lines = kept_;
    if (!line_.empty()) {  // a line not ended yet
      ++lines.count;
      if (lines.first.size() < kQuoted) lines.first.push_back(printableLine(line_));
    }
    return lines;
  }

  // The kept lines and what is left in the pipe, raw, to the terminal.
  // Async-signal-safe: the kept text is published by an atomic length, the
  // pipe does not block (O_NONBLOCK), and the reader may take a part first.
  void flushForCrash() const noexcept {
    [[maybe_unused]] auto const kept = ::write(terminal_, keptText_, keptBytes_.load(std::memory_order_acquire));
    char chunk[4096];
    ssize_t n;
    while ((n = ::read(pipe_, chunk, sizeof chunk)) > 0) {
      [[maybe_unused]] auto const written = ::write(terminal_, chunk, static_cast<std::size_t>(n));
    }
  }

  int terminal() const noexcept { return terminal_; }

 private:
  enum class State { LineStart, Forwarding, Keeping };

  int unread() const {
    int bytes = 0;
    return ::ioctl(pipe_, FIONREAD, &bytes) == 0 ? bytes : 0;
  }

  void take(char const* bytes, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      if (state_ == State::LineStart) {
        classify(bytes[i]);
      } else if (state_ == State::Keeping) {
        keep(bytes[i]);
      } else {
        auto const* newline = static_cast<char const*>(std::memchr(bytes + i, '\n', size - i));
        auto const end = newline ? static_cast<std::size_t>(newline - bytes) + 1 : size;
        forward(bytes + i, end - i);
        if (newline) state_ = State::LineStart;
        i = end - 1;
      }
    }
  }

  // lanes' own lines begin with "lanes" (errors, warnings, the watchdog,
  // heartbeat progress), '{"events"' (--progress-json) or '\r' (the live
  // progress line, redrawn in place); an empty line is passed on too. A
  // line's first bytes are held until they tell.
  void classify(char c) {
    static constexpr std::string_view kOwn[] = {"lanes", "{\"events\""};
    start_ += c;
    bool own = start_[0] == '\r' || start_ == "\n";
    bool undecided = false;
    for (auto const prefix : kOwn) {
      own = own || start_.compare(0, prefix.size(), prefix) == 0;
      undecided = undecided || (start_.size() < prefix.size() && prefix.compare(0, start_.size(), start_) == 0);
    }
    if (!own && c != '\n' && undecided) return;  // a beginning of one of kOwn
    if (own) {
      forward(start_.data(), start_.size());
      state_ = c == '\n' ? State::LineStart : State::Forwarding;
    } else {
      state_ = State::Keeping;
      for (char kept : start_) keep(kept);
    }
    start_.clear();
  }

  void keep(char c) {
    if (c == '\n') return endLine();
    if (line_.size() < kLineMost) line_ += c;
  }

  void forward(char const* data, std::size_t size) {
    while (size > 0) {
      auto const n = ::write(terminal_, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      data += n;
      size -= static_cast<std::size_t>(n);
    }
  }

  // The end of a kept line.
  void endLine() {
    if (auto const used = keptBytes_.load(std::memory_order_relaxed); used + line_.size() < sizeof keptText_) {
      std::memcpy(keptText_ + used, line_.data(), line_.size());
      keptText_[used + line_.size()] = '\n';
      keptBytes_.store(used + line_.size() + 1, std::memory_order_release);
    }
    {
      std::lock_guard lock(mutex_);
      ++kept_.count;
      if (kept_.first.size() < kQuoted) kept_.first.push_back(printableLine(line_));
    }
    line_.clear();
    state_ = State::LineStart;
  }

  int const terminal_;
  int const pipe_;
  // The reader's alone.
  State state_ = State::LineStart;
  std::string start_;  // the first bytes of a line, until it is known whose it is
  std::string line_;   // the kept line so far
  // The kept lines as written, while they fit: the reader appends, the
  // fatal-signal handler reads up to the length.
  char keptText_[2048];
  std::atomic<std::size_t> keptBytes_{0};
  // Guarded by mutex_.
  std::mutex mutex_;
  std::condition_variable done_;
  bool busy_ = false;
  StrayLines kept_;
};

// Never destroyed: its thread reads until the process ends.
std::atomic<Capture*> capture{nullptr};

}  // namespace

void captureStrayOutput() {
  if (capture.load()) return;
  int const terminal = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  int ends[2];
  if (terminal < 0 || ::pipe2(ends, O_CLOEXEC) != 0) {
    throw Exception(std::string("cannot capture stderr: ") + std::strerror(errno));
  }
  ::fcntl(ends[0], F_SETFL, O_NONBLOCK);
  std::fflush(stderr);
  ::dup2(ends[1], STDERR_FILENO);  // without O_CLOEXEC: a child lanes starts writes here too, unless restored
  ::close(ends[1]);
  auto* reader = new Capture(terminal, ends[0]);
  // The thread takes no signal: a stop signal is for the thread that waits
  // for it (SignalStop), a fatal one for the thread that raised it.
  sigset_t all, before;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  std::thread([reader] { reader->read(); }).detach();
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  capture.store(reader);
}

int terminalFd() noexcept {
  auto const* reader = capture.load();
  return reader ? reader->terminal() : STDERR_FILENO;
}

void restoreTerminalInChild() noexcept {
  if (auto const* reader = capture.load()) ::dup2(reader->terminal(), STDERR_FILENO);
}

void drainStrayOutput() {
  std::fflush(stderr);
  std::cerr.flush();
  if (auto* reader = capture.load()) reader->drain();
}

StrayLines strayLines() {
  drainStrayOutput();
  auto* reader = capture.load();
  return reader ? reader->lines() : StrayLines{};
}

void flushStrayOutputForCrash() noexcept {
  if (auto const* reader = capture.load()) reader->flushForCrash();
}

std::string StrayLines::describe() const {
  if (count == 0) return {};
  auto text = std::to_string(count) + (count == 1 ? " line" : " lines") + " written to stderr behind lanes' back: '" +
              first.front() + "'";
  if (count > 1) text += " (and " + std::to_string(count - 1) + " more)";
  return text;
}

nlohmann::json StrayLines::toJson() const { return {{"lines", count}, {"first", first}}; }

}  // namespace lanes::cli
