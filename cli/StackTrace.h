#pragma once
// The stack trace a fatal signal's handler writes after its one line
// (cli/FatalSignals.h): the frames of the thread that received the signal,
// from the faulting instruction outwards, each named by function, file and
// line where the binary holds them (its symbols and debug information, read
// by addr2line), and always by object and offset:
//
//   lanes: stack trace of thread 4242 (pid 4240):
//     #0  (anonymous namespace)::Crash::analyze(lanes::Event const&) const at Crash.cpp:31 (libcrash.so+0x3f21)
//     #1  lanes::detail::Lane::runModule(...) at Lane.cpp:403 (lanes+0x2d7842)
//
// Async-signal-safe once prepared: backtrace() (its unwinder loaded
// beforehand), /proc/self/maps read with read(), addr2line started with a
// raw fork (no atfork handler runs) and execve, its answer awaited at most a
// few seconds; no allocation and no lock. Without addr2line the frames are
// named by object and offset only.

namespace lanes::cli {

// Loads what the trace needs and finds addr2line (on PATH). Not
// async-signal-safe: call it before installing the handler.
void prepareStackTraces();

// Writes the calling thread's stack trace to `fd`, under `heading` (a line
// of its own), from the frame of `faultingInstruction` if it is on the stack
// (the handler's own frames are left out), else from the first. Not
// reentrant: one thread at a time (the handler lets only the first in).
void writeStackTrace(int fd, char const* heading, void const* faultingInstruction);

}  // namespace lanes::cli
