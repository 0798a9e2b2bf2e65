#pragma once
// Multi-process event parallelism (the AthenaMP idea): the job is
// initialised once (modules constructed, files opened, beginJob, optionally
// the first events processed), then P workers are forked that share that
// memory copy-on-write, each with its own oneTBB thread pool. Each worker
// writes its own part of every output and the parent merges the parts at the
// end (OutputMode::Merge), or every worker ships its events in batches to
// the parent, which merges them into the outputs as they arrive
// (OutputMode::SharedWriter, through a BatchRing). The baseline without
// sharing, --no-fork, starts P independent jobs with exec.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/EventProcessor.h"
#include "lanes/monitor/ProgressLine.h"
#include "lanes/monitor/RunReport.h"
#include "lanes/monitor/Watchdog.h"
#include "lanes/node/EventDistribution.h"

namespace lanes::node {

enum class OutputMode {
  Merge,         // each worker writes its part; the parent merges the parts at the end
  SharedWriter,  // workers ship batches through shared memory; the parent writes them as they come
};

OutputMode parseOutputMode(std::string const& name);  // throws lanes::Exception
char const* toString(OutputMode mode);

struct MultiProcessOptions {
  unsigned processes = 2;
  Distribution distribution = Distribution::Queue;
  std::uint64_t chunk = 10;             // events per queue chunk
  std::uint64_t eventsBeforeFork = 0;   // processed by the parent, one thread
  bool fork = true;                     // false: P independent jobs started with exec
  bool retryLost = false;               // a crashed worker's events go to a replacement
  unsigned retryLimit = 2;              // ... at most this many times for the same events
  OutputMode outputMode = OutputMode::Merge;
  // The job's one progress line, which the parent draws from every worker's
  // count (the workers draw none).
  ProgressStyle progress = ProgressStyle::Off;
  std::chrono::milliseconds progressPeriod{500};
  // The parent names a worker whose heartbeat stopped for this long (0: it
  // watches none) and, for stop or abort, kills the workers and fails the job.
  double watchdogSeconds = 0;
  WatchdogAction watchdogAction = WatchdogAction::Warn;
  // --no-fork: the command line of the independent jobs (this job's own);
  // a worker's role is appended as `--worker-role ROLE`.
  std::vector<std::string> commandLine;
  // Told of the parent's own work as each piece ends (a batch the shared
  // writer merged, the parts merged or the shared outputs closed): what, and
  // its begin and end on the monotonic clock, in nanoseconds. Called on the
  // parent's thread; --trace draws them on the parent's track. May be empty.
  std::function<void(char const* what, std::int64_t beginNs, std::int64_t endNs)> onParentWork;
};

// Checks the combination; throws lanes::Exception naming the option.
void validate(MultiProcessOptions const& options);
// ... and that every output of the job can take part in it (a shared
// writer needs outputs that ship batches).
void validate(MultiProcessOptions const& options, EventProcessor const& processor);
// Throws lanes::Exception naming each output of the job that cannot ship
// batches to a shared writer (OutputMode::SharedWriter, on a node or over MPI).
void requireOutputsThatShareAWriter(EventProcessor const& processor);

// Runs one part of the job in the calling process and returns its run
// report as JSON (lanes::RunReport::toJson()). The command line supplies it,
// with its observers and its signal handling.
using PartRunner = std::function<nlohmann::json(EventProcessor&, ProcessPart const&)>;

// Which worker a process started with exec is, and the descriptors it
// inherited; formatted into, and parsed from, the --worker-role argument.
struct WorkerRole {
  unsigned index = 0;        // names its part of the outputs: worker-INDEX-of-PARENT
  int parent = -1;           // the parent's pid: a worker whose parent is gone discards its part
  unsigned residue = 0;      // its seat: round-robin, it takes events first + residue + k * processes
  bool replacement = false;  // takes over the events of a worker that died
  int queueFd = -1;          // the SharedEventQueue (queue distribution), or -1
  int doneFd = -1;           // the worker writes its index here when it has finished
  int releaseFd = -1;        // ... and exits when this reads end-of-file
  int ringFd = -1;           // shared writer: the BatchRing's memory, or -1
  int readyFd = -1;          // ... and the write end of its pipe
  int boardFd = -1;          // the WorkerBoard, where it counts its events and beats
  std::string directory;     // where it writes its report

  std::string format() const;
  static WorkerRole parse(std::string const& text);  // throws lanes::Exception
};

// The body of a worker started with exec: begins the job, runs the role's
// part, reports, and returns the process's exit status.
int runWorkerProcess(EventProcessor& processor, MultiProcessOptions const& options, WorkerRole const& role,
                     PartRunner const& runner);

// The parent. `processor` is constructed and nothing of it has run. Returns
// the job's report: {mode, processes, distribution, chunk, ..., workers
// [...], memory {...}, failed, error} (see MultiProcessReport.h).
nlohmann::json runMultiProcess(EventProcessor& processor, MultiProcessOptions const& options, PartRunner const& runner);

// Prints the report's headline figures, one line per worker, and the
// workers' merged analysis, folded to `rows`.
void printMultiProcessReport(nlohmann::json const& report, std::ostream& out, SummaryRows rows = {});

}  // namespace lanes::node
