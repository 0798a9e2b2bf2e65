#pragma once
// One live writer per path. Before a job writes a file (an output, its
// report, trace or HTML page) it claims the path: it takes an exclusive
// lock (flock) on the claim file PATH.lanes-claim and holds it until the job
// ends. A second job that would write the same path finds the lock taken and
// is refused, naming the job that holds it (the claim file records its pid,
// host and start). The lock is the claim, and dies with the process: a
// killed job's claim blocks nobody. The final rename (commitFile) checks
// the claim again: a claim file removed while the job ran may have let
// another job claim the path meanwhile.
//
// The claim file also proves what lanes left: a killed job's line stays in
// it as long as the temporary files it wrote for PATH (TemporaryName.h) lie
// next to PATH, and `lanes clean` removes exactly those files (a user's own
// "x.partial-99999" has no claim that names its writer).
//
// Format, one line each: "lanes-claim 1", then per writer
// "STATE PID HOST STARTED RANKS" (STATE: writing, or left for a writer that
// is gone; STARTED: seconds since the epoch; RANKS: an MPI job's ranks,
// whose parts PATH's worker-R lie next to PATH, else 0). lanes.tools.lanes_scan
// claims a scan's directory with the same format.
//
// Thread-safe: a process's claims are one registry behind a mutex, taken
// on the job's main thread and checked by whichever thread renames a file.
// A forked child holds none of its parent's claims (their descriptors are
// closed in it); an exec'd program inherits none.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lanes {

// "out.root" -> "out.root.lanes-claim".
std::string claimFileOf(std::string const& path);

// One writer's line of a claim file.
struct ClaimWriter {
  long pid = 0;
  std::string host;
  std::int64_t started = 0;  // seconds since the epoch
  unsigned ranks = 0;

  // "pid 12 on host node1, started 2025-01-31 12:00:00"
  std::string describe() const;
};

// A file a job that is gone left next to a claimed path, and that job.
struct Leftover {
  std::string path;
  ClaimWriter writer;
};

// Claims `path` for this process until releaseClaims(). `use` names it in
// messages ("output 'out' (file=out.root)"); `ranks`: an MPI job's ranks
// (0 for any other job). Returns what jobs that were killed left of `path`
// (the caller names them). Throws lanes::Exception if a live job holds the
// claim ("USE is being written by another lanes job (pid ...): ..."), or if
// the claim file cannot be made.
std::vector<Leftover> claim(std::string const& path, std::string const& use, unsigned ranks = 0);

// Gives up this process's claims: each one's line leaves its claim file,
// which is removed once it names nobody with files left. Also done at exit.
void releaseClaims();

// Renames `temporary` to `path` once this process is sure to hold its claim
// on `path`, if it took one (a part of a multi-process job's file is not
// claimed: its name is the job's own). Returns true if it replaced a file.
// Throws lanes::Exception "cannot write 'PATH': ..." if another job holds
// the claim now, or the rename fails; `temporary` stays then.
bool commitFile(std::string const& temporary, std::string const& path);

// `lanes clean`: every claim file in `directory` that no live job holds,
// and the files its writers left; `each(path, bytes)` is called for each,
// the claim file last, and removes them if `remove`. Symlinks are never
// followed; a live job's claim, and what it writes, is left alone. Throws
// lanes::Exception if a file cannot be removed.
void cleanDirectory(std::string const& directory, bool remove,
                    std::function<void(std::string const& path, std::uintmax_t bytes)> const& each);

}  // namespace lanes
