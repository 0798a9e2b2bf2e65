#pragma once
// What the workers of a multi-process job show their parent while they run:
// per seat (a worker, then its replacements), the events it finished and a
// heartbeat; and what the parent shows them: that it released them, and so
// will merge their parts (a worker that sees its release pipe close without
// it knows that its parent died, even before the system says so). The parent sums the events into the job's one progress line, and
// its watchdog names a worker whose heartbeat stopped: a process stopped by a
// signal, or wedged as a whole (a worker's own watchdog names its hung module
// calls and lanes, but runs on a thread of that very process).

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "lanes/core/ProcessingObserver.h"

namespace lanes::node {

// What ran when a fatal signal ended a worker (lanes/core/RunningNote.h),
// as numbers, for the parent's report; all zero until one did.
struct CrashNote {
  static constexpr std::int32_t kNothing = -2;  // `module` when no call of the job ran
  std::uint32_t noted = 0;      // 1: the worker left this note
  std::int32_t module = 0;      // index into JobInfo::modules, RunnerName::kSource, or kNothing
  std::int32_t transition = 0;  // a lanes::Transition
  std::int32_t lane = -1;       // -1: none
  std::uint32_t reading = 0;    // 1: it was reading a file (lanes/core/ReadingNote.h)
  std::uint32_t hasEvent = 0;   // 1: `event` is the event it ran
  EventId event;
};

// A seat's room for what a dying worker leaves: its line (see
// WorkerBoard::lastWords) and its crash note.
struct LastWords {
  char* text;
  std::size_t size;
  CrashNote* crash;
};

// Thread-safe, across processes too: a page-aligned block in a memfd, mapped
// by every process (inherited by a fork, passed by descriptor across an
// exec), whose fields are accessed only atomically; but a seat's last words,
// which only its worker writes, as it dies, and the parent reads once it has
// reaped that worker.
class WorkerBoard {
 public:
  // The parent's: a new board of `seats` seats, each zero.
  explicit WorkerBoard(unsigned seats);
  // A worker's, after an exec: the board behind descriptor `fd`.
  struct Descriptor {
    int fd;
  };
  explicit WorkerBoard(Descriptor descriptor);
  ~WorkerBoard();
  WorkerBoard(WorkerBoard const&) = delete;
  WorkerBoard& operator=(WorkerBoard const&) = delete;

  int fd() const { return fd_; }
  unsigned seats() const { return seats_; }

  void addEvent(unsigned seat);
  void beat(unsigned seat);  // now, on the monotonic clock
  std::uint64_t events(unsigned seat) const;
  // The last beat (nanoseconds on the monotonic clock), 0 before the first.
  std::int64_t lastBeat(unsigned seat) const;
  // Zeroes a seat: its worker died, and a replacement takes it from the start.
  void reset(unsigned seat);
  // What the seat's worker said as a fatal signal ended it, while it read a
  // file (cli/FatalSignals.h: "while reading branch ... in 'FILE': ..."), or
  // "". The parent reads it once the worker is reaped.
  std::string lastWords(unsigned seat) const;
  // What it ran as it died; `noted` is 0 if it left no note.
  CrashNote crashNote(unsigned seat) const;
  // Where the seat's worker writes them.
  LastWords lastWordsRoom(unsigned seat);

  // The parent, before it closes the workers' release pipe.
  void release();
  bool released() const;

 private:
  struct Header;
  struct Seat;
  Header& header() const;
  Seat& seat(unsigned index) const;

  int fd_ = -1;
  unsigned seats_ = 0;
  void* memory_ = nullptr;
  std::size_t bytes_ = 0;
};

// Where this process's fatal-signal handler leaves its line and note for the
// parent: the seat of the worker's WorkerPresence while one exists, else
// {nullptr, 0, nullptr}. Async-signal-safe (an atomic load).
LastWords workerLastWords() noexcept;

// A worker's side of the board: counts the events its process finishes and,
// while it exists, beats every `period` on a thread of its own, and offers
// its seat's last words (workerLastWords()). Thread-safe: eventFinished() is
// called from any thread.
class WorkerPresence : public ProcessingObserver {
 public:
  WorkerPresence(WorkerBoard& board, unsigned seat, std::chrono::milliseconds period);
  ~WorkerPresence() override;
  WorkerPresence(WorkerPresence const&) = delete;
  WorkerPresence& operator=(WorkerPresence const&) = delete;

  unsigned hooks() const override { return kEvents; }
  void eventFinished(unsigned lane, EventId const& id, EventStatus status, Clock::time_point when) override;

 private:
  WorkerBoard& board_;
  unsigned const seat_;
  std::mutex mutex_;  // guards closing_
  std::condition_variable wake_;
  bool closing_ = false;
  std::thread thread_;
};

}  // namespace lanes::node
