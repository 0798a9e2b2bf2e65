#pragma once
// Everything a job needs at run time, built and validated from a JobConfig:
// the source, the product registry, the workers (modules, then outputs), the
// paths, and the shared run-time state of the lanes.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "Boundaries.h"
#include "Worker.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/FastClock.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/detail/ClaimedRuns.h"

namespace lanes::detail {

class Lane;

struct Path {
  std::string name;
  std::vector<unsigned> modules;  // worker indices, in order
};

struct OutputRoute {
  unsigned worker;
  std::vector<unsigned> selectPaths;  // empty: every event
};

// Built on one thread; during run() the lanes share it. The fields below
// "run-time state" are atomics or written once before the lanes start.
class Schedule {
 public:
  Schedule(JobConfig config, PluginRegistry const& plugins);
  ~Schedule();

  RunSummary run();
  void beginJob();
  RunSummary process(ProcessPart const& part);
  void endJob();
  void afterFork();
  void beforeFork();

  JobConfig const config;
  unsigned const lanes;
  JobInfo info;

  std::unique_ptr<Source> source;
  // How the thread's running note names the source (RunningScope).
  RunnerName const sourceRunner{"source", config.source.name.c_str(), RunnerName::kSource};
  bool replicatedSource = false;
  // A lane's own copy of a replicable source (the first lane gets the one
  // that was made to find out whether the source replicates).
  std::unique_ptr<Source> takeReplica();
  // Source reads run inline in the module that needs them only where read()
  // may run concurrently (products from memory); a file source, even a lane's
  // own copy, is read under a serial queue.
  bool inlineSourceReads = false;
  // How an event's source products reach their slots (products from memory
  // inline; a shared file's with the event; a lane's copy's in batches).
  SourceReads sourceReads() const {
    if (inlineSourceReads) return SourceReads::Inline;
    return replicatedSource ? SourceReads::Batched : SourceReads::WithTheEvent;
  }
  std::size_t sourceProducts = 0;  // registry indices [0, sourceProducts) come from the source
  std::vector<unsigned> sourceConsumers;         // per source product: how many modules consume it
  // Those with several consumers, which coordinate through the lane's state
  // of the product; a product's only consumer reads it without.
  std::vector<ProductIndex> sharedSourceProducts;
  std::vector<ProductIndex> consumedSourceProducts;  // those any module consumes, in registry order
  ProductRegistry registry;
  // Run and lumi products: the source's first, then the modules'.
  ProductRegistry runRegistry;
  ProductRegistry lumiRegistry;
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<Path> paths;
  std::vector<OutputRoute> outputs;
  std::vector<ProcessingObserver*> observers;
  std::function<void()> threadEntryHook;  // EventProcessor::onThreadEntry
  bool watched = false;                   // EventProcessor::watchLanes
  std::vector<LaneActivity> laneActivity() const;

  // Run-time state.
  // Shared with the continuations of external work: a foreign thread that
  // enqueues the resumption must find the arena alive until enqueue() returns,
  // even if that task runs, the job ends and the schedule is destroyed meanwhile.
  std::shared_ptr<tbb::task_arena> arena;
  tbb::task_group group;
  std::unique_ptr<LimitedTaskQueue> sourceQueue;
  std::atomic<bool> halted{false};     // no new event may be claimed (stop, failure, end of input)
  std::atomic<bool> cancelled{false};  // not even one already claimed may start (stop, failure)
  std::atomic<bool> stopRequested{false};  // by requestStop()
  std::uint64_t replicaChunk = 1;          // ordinals a lane claims at a time (a replicated source's)
  ClaimedRuns runs;                        // the runs the lanes claimed from a replicated source
  std::unique_ptr<Boundaries> boundaries;  // runs and lumis: where the lanes claim their ordinals
  std::unique_ptr<ConditionsService> conditions;
  // The part's dispenser (which events this process takes), or nullptr: all.
  EventDispenser* dispenser() const { return dispenser_; }
  // What a lane claims at a time from a replicated source that asks for no
  // chunk of its own: a claim per event would make the claims' counter
  // bounce between the threads' caches at top speed.
  static constexpr std::uint64_t kLeastRun = 16;
  // Events the shared source has moved past (next() and skip()); only
  // touched under the source's serial queue.
  alignas(128) std::uint64_t sharedSourcePosition = 0;
  // The shared source's event `ordinal`, skipping those before it that other
  // processes take; false past the input's end. Under the source's queue.
  bool readShared(std::uint64_t ordinal, SourceEvent& event);
  std::atomic<std::uint64_t> eventsSkipped{0};  // the processed ones are counted by each lane (Lane::eventsDone)

  bool timing() const { return !observers.empty(); }
  // What the lanes time with while someone observes (calibrated as each part starts).
  FastClock clock;
  // The observers of each kind of hook (ProcessingObserver::hooks()), as each part starts.
  std::vector<ProcessingObserver*> callObservers, waitObservers, eventObservers, blockObservers;
  void record(CallRecord const& call) const {
    for (auto* observer : callObservers) observer->callFinished(call);
  }
  void record(WaitRecord const& wait) const {
    for (auto* observer : waitObservers) observer->waitFinished(wait);
  }
  // The first error that stops the job; later ones are dropped.
  void fail(std::exception_ptr error);

  // The job's error if it failed on a ConfigurationError as it began; else "".
  std::string configurationError() const { return configurationError_ ? jobError_ : std::string(); }

 private:
  void buildSource(PluginRegistry const& plugins);

  void buildModules(PluginRegistry const& plugins);
  void buildOutputs(PluginRegistry const& plugins);
  void addWorker(std::string const& label, std::string const& plugin, std::vector<std::unique_ptr<Module>> instances);
  void resolveDependencies();
  void resolveConditions(Module& module) const;
  void countSourceConsumers();
  void buildPaths();
  void findSoleStarters();
  void checkNoCycle() const;
  // JobInfo's account of the schedule: limits, prerequisites, paths, outputs, the source's reads.
  void describeSchedule();
  enum class Modules { AllButOutputs, Outputs };
  void runJobTransition(Transition transition, Modules which, std::string const& part, BatchSink* sink = nullptr);
  void startPart(ProcessPart const& part);
  // Sorts the observers by the hooks they listen to, and calibrates the clock if any.
  void listen();
  // A failure of a job transition, or the first error of a part: the job
  // stays failed. Job-thread only.
  void failJob(std::string error);
  // Events the job will process and the largest event number it can reach,
  // when the source and the event limit tell (0: unknown).
  std::uint64_t expectedEvents() const;
  std::uint64_t lastEventNumber() const;
  // JobContext::hasEventNumber.
  std::optional<bool> hasEventNumber(std::uint64_t number) const;
  // The ordinals a lane claims at a time from a replicated source.
  std::uint64_t lanesRun(std::uint64_t sourceChunk, std::uint64_t events) const;

  enum class Step { Constructed, Begun, Ended };
  Step step_ = Step::Constructed;
  bool jobFailed_ = false;
  bool wholeJob_ = false;  // the last part processed was the whole job
  bool configurationError_ = false;  // the job failed on a ConfigurationError as it began
  std::string jobError_;
  EventDispenser* dispenser_ = nullptr;
  std::unique_ptr<Source> spareReplica_;
  std::once_flag failOnce_;
  std::exception_ptr firstError_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

}  // namespace lanes::detail
