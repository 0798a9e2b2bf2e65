#pragma once
// The names a file is written under until it is complete, in one place, so
// that whoever looks for leftovers (a new job, `lanes clean`) agrees with
// whoever writes them: "out.root" is written as "out.root.partial-PID" and
// renamed to "out.root" when complete; a killed job leaves its partial file.
// A multi-process job's parts name the parent too ("out.worker-2-of-PPID.root",
// written as "out.worker-2-of-PPID.root.partial-PID"): a part is finished
// before the parent merges it, and only the parent's pid tells, once the
// parent was killed, that nobody will. A name proves nothing by itself:
// the claim of the file (lanes/core/PathClaim.h) names the jobs whose
// temporary files these are.
// Free functions without state: thread-safe.

#include <optional>
#include <string>
#include <vector>

namespace lanes {

// "out.root", 1234 -> "out.root.partial-1234".
std::string partialPath(std::string const& path, long pid);

// The name of a part of the multi-process job whose parent is process
// `parent`: "worker-2", 1234 -> "worker-2-of-1234" (its files are at
// partPath(file, name)). `part` is "prefork" or "worker-N".
std::string jobPartName(std::string const& part, long parent);

// A file on its way to another: a partial file, a multi-process part, an
// MPI rank's part, or a part's partial file.
struct TemporaryFile {
  std::string target;         // the file it was to become: the job's file, for a part
  std::vector<long> writers;  // who would finish it: the writing process and, for a part, the parent
  bool rankPart = false;      // an MPI rank's part ("out.worker-R.root"), which no pid in its name tells
};
// The inverse of partialPath() and of partPath(file, jobPartName()), or
// nothing for a name they did not make. The partial file of an MPI rank's
// part ("out.worker-R.root.partial-PID", whose parent is no process here)
// and the part itself have the job's file as their target too. A partial
// file may carry one more extension, of a helper's own temporary
// ("page.html.partial-PID.tmp").
std::optional<TemporaryFile> parseTemporary(std::string const& path);

// Whether process `pid` runs here (one of another user's counts; a zombie does not).
bool processAlive(long pid);

// The partial files of `path`, whoever writes them (the parent discards
// those of its workers' parts).
std::vector<std::string> partialsOf(std::string const& path);

}  // namespace lanes
