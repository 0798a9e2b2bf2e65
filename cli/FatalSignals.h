#pragma once
// A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, and SIGABRT: the C
// library's heap checks abort) raised while the process reads a file, in a
// reading library that followed a bad pointer out of a damaged file: before the process ends, one line names what the thread
// read (lanes/core/ReadingNote.h: the file, the TTree or RNTuple, the
// branch or field, the entry) and says that the file is probably damaged;
// then the signal takes its default action (the same exit status, and a
// core dump where they are enabled). A signal raised elsewhere ends the
// process as it always did, without a line.
//
// The handler runs on an alternate stack (a damaged count can recurse until
// the thread's own stack is gone) and is async-signal-safe: it formats into
// a buffer on that stack and write()s it. In a worker of a multi-process
// job it leaves the line on the workers' board instead (node/WorkerBoard.h),
// and the parent prints it, naming the worker.

#include <string>

namespace lanes::cli {

// Installs the handler, process-wide, and gives the calling thread its
// alternate stack; again after a library installed its own (MPI_Init does).
// A `who` that is not empty is put at the front of the line from then on
// ("rank 2: " for an MPI rank, once it is known). Call it on the thread
// that runs the job, before the job starts others.
void reportFatalSignals(std::string const& who = {});

// Gives the calling thread an alternate signal stack, once: every thread
// that reads a file needs one (EventProcessor::onThreadEntry calls it on
// each thread of the job's arena). Thread-safe: each thread has its own.
void giveThreadSignalStack();

}  // namespace lanes::cli
