#pragma once
// Runs a job: constructs and validates the modules of a JobConfig, then
// processes events in N lanes over M threads of a oneTBB task_arena.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lanes/core/BatchSink.h"
#include "lanes/core/EventDispenser.h"
#include "lanes/core/JobConfig.h"
#include "lanes/core/LaneActivity.h"
#include "lanes/core/ProcessGroup.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProcessingObserver.h"

namespace lanes {

// What one conditions record did in a job (Conditions.h).
struct ConditionsSummary {
  std::string record;
  unsigned concurrentIovs = 1;
  std::uint64_t loads = 0;        // payloads loaded (an interval that comes back after its slot was reused loads again)
  double loadSeconds = 0;         // their loads, summed
  std::uint64_t deferredBegins = 0;  // lumi begins that waited for a slot of the record
  double deferredSeconds = 0;        // how long, summed
};

struct RunSummary {
  std::uint64_t eventsProcessed = 0;  // finished without error (written by accepting outputs)
  std::uint64_t eventsSkipped = 0;    // failed under ErrorPolicy::Skip
  bool failed = false;                // the job stopped on an error
  bool stopRequested = false;         // requestStop() ended the job early
  std::string error;                  // one line naming module and event, when failed
  bool configurationError = false;    // it failed on a ConfigurationError as the job began: bad input, no event ran
  std::uint64_t runsStolen = 0;       // halves of runs that lanes took from others (ClaimedRuns::steal)
  // Runs and lumis: the entries the job went through (a lumi that comes back
  // later, or a run number that goes back, is a new entry, also counted as
  // repeated), the lumis without events, and how many were in flight at most.
  std::uint64_t runs = 0;
  std::uint64_t lumis = 0;
  std::uint64_t repeatedRuns = 0;
  std::uint64_t repeatedLumis = 0;
  std::uint64_t emptyLumis = 0;
  std::vector<ConditionsSummary> conditions;  // by record
};

// One process's share of a multi-process job (the node layer runs them).
struct ProcessPart {
  std::string name;                  // the outputs write at partPath(file, name)
  EventDispenser* events = nullptr;  // which events; nullptr: all (up to maxEvents)
  unsigned threads = 0;              // 0: the job's
  // Which of how many workers runs it (a replacement takes the seat of the
  // worker it replaces), e.g. to give each its own CPUs; seats == 0 for a
  // part that is no worker's (the parent's events before the fork).
  unsigned seat = 0;
  unsigned seats = 1;
  // A shared-writer job: the outputs ship their events here instead of
  // writing the part's files (JobContext::shipBatch). Not owned.
  BatchSink* sink = nullptr;
};

class Source;

namespace detail {
class Schedule;
}

// Construction and run() happen on one thread; requestStop() is thread-safe
// and may be called from any thread (a signal handler's helper thread too).
class EventProcessor {
 public:
  // Constructs every plugin and validates the job; throws lanes::Exception
  // naming the culprits (unknown plugin or option, a product consumed but
  // never produced or produced twice, a dependency cycle, ...).
  explicit EventProcessor(JobConfig config, PluginRegistry const& registry = PluginRegistry::instance());
  ~EventProcessor();

  // Observers are not owned: remove them before they are destroyed.
  void addObserver(ProcessingObserver* observer);
  void clearObservers();

  // Called on every thread that enters the job's task arena (the oneTBB
  // workers and the thread that calls run()), before it runs any of the job's
  // tasks, concurrently from several threads; node's thread pinning uses it.
  // A thread that leaves the arena and comes back is announced again. Set
  // before run().
  void onThreadEntry(std::function<void()> hook);

  // Processes events until the source ends, maxEvents is reached, a failure
  // stops the job or a stop is requested. Runs beginJob/endJob around it.
  // A job runs once; a second call throws.
  RunSummary run();

  // run() in steps, for a multi-process job: beginJob() once (every module
  // but the outputs), then process() for each part the process takes, then
  // endJob() once. Each part begins and ends the outputs, which write the
  // part's own files. A worker forked after beginJob(), or after a part,
  // goes on with a copy of this state. A failed part leaves the job failed.
  void beginJob();
  // After beginJob(): the ConfigurationError a module threw as the job
  // began, with its context ("" if none): bad input, found before any event.
  std::string configurationError() const;
  RunSummary process(ProcessPart const& part);
  void endJob();
  // In a process forked from the one that built the job (a multi-process
  // job's worker), before its first part: Source::afterFork() of the source
  // and of every lane's copy of it.
  void afterFork();
  // In the process that forks the workers, right before it does:
  // Source::beforeFork() of the source and of every lane's copy of it.
  void beforeFork();

  // The outputs' OutputModule::mergeParts() and discardParts(), in the parent
  // of a multi-process job once its workers have ended.
  void mergeOutputParts(std::vector<std::string> const& parts);
  void discardOutputParts(std::vector<std::string> const& parts);

  // A shared-writer multi-process job, in the parent (the writer): the
  // outputs' OutputModule::openShared(), mergeBatch() of output number
  // `output` (as BatchSink::ship() numbers them), commitShared() and
  // abandonShared(). sharedWriterRefusals() names each output that cannot
  // share a writer, as "LABEL (PLUGIN)".
  std::vector<std::string> sharedWriterRefusals() const;
  void openSharedOutputs();
  void mergeOutputBatch(unsigned output, void const* bytes, std::size_t size);
  void commitSharedOutputs();
  void abandonSharedOutputs();

  // The outputs' OutputModule::writeTogether(), on every process of `group`
  // at once, after every part succeeded.
  void writeOutputsTogether(ProcessGroup const& group);

  // In-flight events finish; no new event starts.
  void requestStop();

  // For a watchdog. watchLanes(), before run() or process(), makes every
  // lane note which event and module call it runs (two clock reads and a
  // few relaxed stores per call; nothing unless asked); laneActivity() is
  // thread-safe and returns one entry per lane (none unless watched).
  void watchLanes();
  std::vector<LaneActivity> laneActivity() const;

  JobInfo const& info() const;

  // Module::details() of every module, in the order of info().modules (for
  // stream modules, those of the first lane's copy). Call after run().
  std::vector<std::string> moduleDetails() const;
  // Source::details() of the job's source; any time.
  std::string sourceDetails() const;
  // The job's source (the lanes' shared one, or the one their copies are
  // made from): for the node layer to hand out its input files, before any
  // event runs.
  Source& source();

 private:
  std::unique_ptr<detail::Schedule> schedule_;
};

}  // namespace lanes
