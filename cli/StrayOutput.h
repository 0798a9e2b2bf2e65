#pragma once
// What other code of the process writes to stderr behind lanes' back: ROOT
// prints some complaints straight to stderr, bypassing its error handler
// (which lanes keeps for its own one-line errors): its decompressors'
// fprintf(stderr, "R__unzipLZ4: Buffer corruption error! ..."), its zstd's
// std::cerr. While captured, fd 2 is a pipe, and a thread of its own
// passes lanes' own output on to the real stderr as it comes (a line that
// begins with "lanes", with '{"events"': --progress-json, or with '\r':
// the live progress line) and keeps
// every other line, printing none of them: a job that fails quotes them in
// its one-line error, one that succeeds counts them in a warning and in its
// report (`stray_output`). Reading costs nothing more: the thread sleeps
// until something is written.
//
// Thread-safe. The capture is process-wide and lasts until the process
// ends; a process forked while it runs has no thread to read its pipe, so a
// multi-process job's parent does not capture (no thread may run at the
// fork), and each worker captures its own.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lanes::cli {

// Starts capturing, once: the calling thread should be the only one yet.
void captureStrayOutput();

// The real stderr: fd 2 until captureStrayOutput(), then a duplicate of
// what fd 2 was. For what must reach the user without the reading thread
// (the fatal-signal handler, a process about to _exit) and for child
// processes, whose stderr is not lanes'. Async-signal-safe.
int terminalFd() noexcept;

// In a child between fork and exec: gives it the real stderr as fd 2.
// Async-signal-safe.
void restoreTerminalInChild() noexcept;

// Returns once every byte written to fd 2 before the call is passed on or
// kept (at once when nothing is captured).
void drainStrayOutput();

// The lines kept so far (each a printableLine): how many, and the first few.
struct StrayLines {
  std::uint64_t count = 0;
  std::vector<std::string> first;
  // "ROOT wrote 2 lines to stderr outside its error handler: 'R__unzipLZ4: ...' (and 1 more)"; "" for none.
  std::string describe() const;
  // {lines, first}: the report's `stray_output`.
  nlohmann::json toJson() const;
};
StrayLines strayLines();

// Writes what the capture holds that the user has not seen, raw, to the
// real stderr: what is still in the pipe. For the fatal-signal handler,
// before the process dies. Async-signal-safe.
void flushStrayOutputForCrash() noexcept;

}  // namespace lanes::cli
