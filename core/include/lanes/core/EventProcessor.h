#pragma once
// Runs a job: constructs and validates the modules of a JobConfig, then
// processes events in N lanes over M threads of a oneTBB task_arena.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lanes/core/EventDispenser.h"
#include "lanes/core/JobConfig.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProcessingObserver.h"

namespace lanes {

struct RunSummary {
  std::uint64_t eventsProcessed = 0;  // finished without error (written by accepting outputs)
  std::uint64_t eventsSkipped = 0;    // failed under ErrorPolicy::Skip
  bool failed = false;                // the job stopped on an error
  bool stopRequested = false;         // requestStop() ended the job early
  std::string error;                  // one line naming module and event, when failed
};

// One process's share of a multi-process job (the node layer runs them).
struct ProcessPart {
  std::string name;                  // the outputs write at partPath(file, name)
  EventDispenser* events = nullptr;  // which events; nullptr: all (up to maxEvents)
  unsigned threads = 0;              // 0: the job's
};

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
  RunSummary process(ProcessPart const& part);
  void endJob();

  // The outputs' OutputModule::mergeParts() and discardParts(), in the parent
  // of a multi-process job once its workers have ended.
  void mergeOutputParts(std::vector<std::string> const& parts);
  void discardOutputParts(std::vector<std::string> const& parts);

  // In-flight events finish; no new event starts.
  void requestStop();

  JobInfo const& info() const;

  // Module::details() of every module, in the order of info().modules (for
  // stream modules, those of the first lane's copy). Call after run().
  std::vector<std::string> moduleDetails() const;

 private:
  std::unique_ptr<detail::Schedule> schedule_;
};

}  // namespace lanes
