#pragma once
// One event in flight at a time: the lane fetches an event, runs its paths
// (producers on demand), then its outputs, then fetches the next. Nothing in
// a lane ever blocks a thread: work that cannot go on yet leaves a waiter
// behind, and whoever completes the awaited work continues it.

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "LaneWatch.h"
#include "Schedule.h"
#include "lanes/core/Event.h"
#include "lanes/core/detail/HoldCount.h"
#include "lanes/core/detail/WaitingList.h"

namespace lanes::detail {

// Lane-confined, with the event's tasks (which may run on several threads at
// once) coordinating through atomics and waiting lists.
class Lane {
 public:
  Lane(Schedule& schedule, unsigned index);

  // Source::afterFork() and beforeFork() of the lane's copy of the source, if it has one.
  void afterFork() {
    if (replica_) replica_->afterFork();
  }
  void beforeFork() {
    if (replica_) replica_->beforeFork();
  }

  // What the lane does now; thread-safe (see LaneWatch).
  LaneActivity activity() const { return watch_.snapshot(index_); }

  // Starts processing a part: run() with nothing claimed yet, the lane idle
  // since `since` (when timing).
  void start(Clock::time_point since);
  // Processes events until the job halts. Returns early when an event goes
  // asynchronous; its completion calls run() again.
  void run();
  // The part's events the lane finished without error; read once the part is over.
  std::uint64_t eventsDone() const { return eventsDone_; }

 private:
  // Resumes module `module` once prerequisite `prerequisite` is ready.
  struct PrefetchWaiter final : Waiter {
    Lane* lane;
    unsigned module;
    unsigned prerequisite;
    void notify() override { lane->prerequisiteReady(module, prerequisite); }
  };
  // Resumes module `module` once a conditions payload it reads is loaded.
  struct ConditionsWaiter final : Waiter {
    Lane* lane;
    unsigned module;
    void notify() override { lane->conditionsLoaded(module); }
  };
  struct PathWaiter final : Waiter {
    Lane* lane;
    unsigned path;
    void notify() override {
      if (lane->advancePath(path)) lane->pathDone();
    }
  };
  struct OutputWaiter final : Waiter {
    Lane* lane;
    void notify() override { lane->outputDone(); }
  };
  // Resumes the lane once the lumi it goes into has begun.
  struct BegunWaiter final : Waiter {
    Lane* lane;
    void notify() override;
  };

  struct ModuleState {
    std::atomic<bool> claimed{false};
    WaitingList done;
    HoldCount pending;
    bool accepted = true;
    std::exception_ptr externalError;
    std::vector<PrefetchWaiter> prefetch;  // one per prerequisite
    std::vector<ConditionsWaiter> conditions;  // one per conditions record it reads
    Clock::time_point conditionsSince;        // when it began to wait for one (if timing)
    // Prerequisites (source products that other modules consume too) this
    // module claimed, and their products: read in one serialised batch, with
    // the module's solo reads, and announced by the batch's completion, with
    // no waiter of the module's on them.
    std::vector<unsigned> toRead;
    std::vector<ProductIndex> toReadProducts;
    std::vector<unsigned> readyAtStart;  // prerequisites ready when start() looked (announced together)
    Clock::time_point queued;              // when the call was pushed to the module's queue (if timing)
    Clock::time_point acquired;            // when acquire() began (if timing)
    Clock::time_point completed;           // when its external work completed (if timing)
  };
  struct SourceProductState {
    std::atomic<bool> claimed{false};
    WaitingList done;
  };
  struct PathState {
    PathWaiter waiter;
    unsigned step = 0;
    bool accepted = true;
  };

  // What the lane goes on with: an event, nothing until a lumi slot is freed
  // (parked: Boundaries::park), or nothing more.
  enum class Next { Event, Parked, End };
  void fetchSharedAndProcess();
  // The shared source's next ordinal and its lumi (eventLumi_); under the source's queue.
  Next claimShared(std::uint64_t& ordinal);
  void afterSharedFetch();
  // Reads every source product some module consumes into the event's slots;
  // under the shared source's serial queue, right after the event's next().
  void readWholeEvent();
  // The lane has no more events: its last Idle wait lasts until now.
  void idleToTheEnd() const;
  // The next ordinal for a replica, and its lumi (eventLumi_): from the
  // lane's run, a new run it claims, or one it takes from another lane
  // (ClaimedRuns::steal).
  Next nextOrdinal(std::uint64_t& ordinal);
  // A claim the source failed to answer fails the job.
  Boundaries::Status claim(Source& source, std::uint64_t count, Boundaries::Claim& claim, std::uint64_t& generation);
  // Parks the lane, out of its lumi, until a lumi slot is freed; false if one was freed meanwhile.
  bool park(std::uint64_t generation);
  // Goes into `lumi`, leaving the lumi it is in; false if the lumi's begin
  // has not ended: lumiBegun() goes on then.
  bool enter(BlockSlot* lumi);
  // The job failed, at a lumi's begin perhaps (a module's, its stream
  // modules', its conditions): the lane starts no event of it.
  bool boundaryFailed() const { return schedule_.cancelled.load(std::memory_order_acquire) && !schedule_.stopRequested.load(std::memory_order_acquire); }
  void lumiBegun();
  // Leaves the lumi it is in (if any) for `to` (nullptr: none).
  void leaveLumi(BlockSlot* to);
  // A Boundary wait, from now to its end (within the lane's Idle wait).
  void boundaryWaitBegins();
  void boundaryWaitEnds();
  // Positions the lane on the event of `ordinal` (a replica) or on the shared
  // source's next event; false at the end of the input or on a source error,
  // both of which halt the job.
  bool advanceSource(std::uint64_t ordinal);
  // The shared source's event `ordinal` (Schedule::readShared), unless the
  // frontier read it already to learn its lumi. Under the source's serial queue.
  bool nextShared(std::uint64_t ordinal);
  // Starts the current event; true if it also finished before returning.
  bool processEvent() {
    resetEventState();
    return startEvent();
  }
  void resetEventState();
  // processEvent() after resetEventState().
  bool startEvent();
  void eventDone();

  // True if `module` is done now; otherwise `waiter` is notified when it is.
  bool ensure(unsigned module, Waiter* waiter);
  // True if source prerequisite `prerequisite` of `module`, a product that
  // other modules consume too, is ready now; else the module waits for it,
  // or claims it for its batch (toRead).
  bool ensureSourceProduct(unsigned module, unsigned prerequisite);
  void start(unsigned module);
  void prerequisiteReady(unsigned module, unsigned prerequisite);
  // How many of the module's conditions payloads for the event are loaded
  // now; it waits for the others (a Conditions wait).
  unsigned conditionsReady(unsigned module);
  void conditionsLoaded(unsigned module);
  // Fewer lanes than threads leave threads idle: prerequisites ready at once
  // are then announced as one range (announceTogether).
  bool announcesTogether() const { return schedule_.lanes < schedule_.config.threads; }
  // Calls productReady() of output `module` for the products of
  // `prerequisite`; the caller notes the calls (readyCalls).
  void announceReady(unsigned module, unsigned prerequisite);
  void announceTogether(unsigned module, std::vector<unsigned> const& prerequisites);
  void launch(unsigned module);
  // The steps of a module's call take the time they begin at (if timing): a
  // call held back by its module's queue begins as its Queue wait ends.
  // Pushes `step` of the module to the module's queue, noting when for a
  // Queue wait; `thenFinish`: the module's finish() follows, out of the queue.
  template <void (Lane::*step)(unsigned, Clock::time_point)>
  void enqueue(unsigned module, bool thenFinish);
  // The module's event call (none once the event failed); finish() is the caller's.
  void runModule(unsigned module, Clock::time_point begin);
  void acquire(unsigned module, Clock::time_point begin);
  // After the external work: its error, or the produce call; finish() is the caller's.
  void produceAfterAcquire(unsigned module, Clock::time_point begin);
  void finish(unsigned module);
  // Reads source products into the event's slots (Source::readProducts); a
  // failure fails the event.
  void readSourceProducts(ProductIndex const* products, std::size_t count);
  void readBatch(unsigned module);
  // The batch's completion: its products are done for the other modules that
  // wait on them, and announced for the module that read them.
  void batchRead(unsigned module);

  // True once the path is through (its hold is then the caller's to give
  // back); false while it waits, and its waiter goes on.
  bool advancePath(unsigned path);
  void pathDone();
  void startOutputs();
  void outputDone();

  // A call into a module while it runs: the thread's running note names it
  // (for a fatal signal), and the lane's watch, when watched.
  class CallScope {
   public:
    CallScope(Lane& lane, unsigned module, Transition transition)
        : lane_(lane),
          module_(module),
          running_(lane.schedule_.workers[module]->runner(), transition, static_cast<int>(lane.index_), &lane.event_.id()) {
      if (lane_.watched_) lane_.watch_.callBegan(module_);
    }
    ~CallScope() {
      if (lane_.watched_) lane_.watch_.callEnded(module_);
    }
    CallScope(CallScope const&) = delete;
    CallScope& operator=(CallScope const&) = delete;

   private:
    Lane& lane_;
    unsigned const module_;
    RunningScope const running_;
  };
  // A call into the source, for the thread's running note.
  RunningScope sourceCall(Transition transition, EventId const* event) const {
    return RunningScope(schedule_.sourceRunner, transition, static_cast<int>(index_), event);
  }
  // productReady() calls of output `module`, for the thread's running note.
  RunningScope readyCalls(unsigned module) const {
    return RunningScope(schedule_.workers[module]->runner(), Transition::ProductReady, static_cast<int>(index_), &event_.id());
  }

  void failEvent(std::exception_ptr error, ErrorContext context);
  bool eventFailed() const { return failed_.load(std::memory_order_acquire); }
  ErrorContext contextFor(unsigned module, Transition transition) const;
  // Call records cost two clock reads; they are taken only in timed events.
  Clock::time_point now() const { return timing_ ? schedule_.clock.now() : kUntimed; }
  // Whether the event about to start is timed, one in JobConfig::timingSample.
  bool timeNextEvent() {
    if (untilTimed_ == 0) {
      untilTimed_ = schedule_.config.timingSample - 1;
      return observed_;
    }
    --untilTimed_;
    return false;
  }
  // Each returns the end it read, for what begins then. An untimed event's
  // calls are counted all the same. Whether the call is timed is told by its
  // begin, not timing_: an acquire() call is recorded after its external work
  // may have let the lane's next event begin.
  Clock::time_point record(unsigned module, Transition transition, Clock::time_point begin) const {
    if (begin == kUntimed) {
      if (observed_) schedule_.record(CallRecord{module, transition, index_, event_.id(), kUntimed, kUntimed, false});
      return kUntimed;
    }
    auto const end = schedule_.clock.now();
    schedule_.record(CallRecord{module, transition, index_, event_.id(), begin, end});
    return end;
  }
  // A wait may have begun on another thread: it ends no earlier than it began (see FastClock).
  Clock::time_point recordWait(unsigned module, WaitKind kind, Clock::time_point begin) const {
    return timing_ ? recordWait(module, kind, begin, schedule_.clock.now()) : Clock::time_point{};
  }
  Clock::time_point recordWait(unsigned module, WaitKind kind, Clock::time_point begin, Clock::time_point end) const {
    if (!timing_) return {};
    end = std::max(begin, end);
    schedule_.record(WaitRecord{module, kind, index_, event_.id(), begin, end});
    return end;
  }

  Schedule& schedule_;
  unsigned const index_;
  bool observed_ = false;  // someone observes the job
  bool timing_ = false;    // the current event is timed (observed, and sampled if the job samples)
  unsigned untilTimed_ = 0;  // events of this lane to start before the next timed one
  bool watched_ = false;  // a watchdog reads watch_
  LaneWatch watch_;
  Event event_;
  SourceEvent sourceEvent_;
  Clock::time_point freeSince_;  // when the lane's last event (or the part) ended, if read: an Idle wait begins
  // freeSince_ while the lane goes straight on to its next event's read, with no wait between; else kUntimed.
  Clock::time_point wentOnFrom_ = kUntimed;
  Clock::time_point eventRead_;  // when the source's next() of the current event ended (if timing)
  bool fetched_ = false;  // written in the source queue's task, read right after it in the same task
  // Runs and lumis: the lumi the lane is in and the events it finished
  // there, the lumi of the event it fetches, and where it may take others'
  // ordinals from (never a lumi it has left).
  BlockSlot* lumi_ = nullptr;
  std::uint64_t lumiEvents_ = 0;
  BlockSlot* eventLumi_ = nullptr;
  std::uint64_t floor_ = 0;
  BegunWaiter begunWaiter_;
  bool enterNewRun_ = false;           // entering lumi_ begins a run for the lane's stream modules
  std::uint64_t waitingOrdinal_ = 0;   // a replica's ordinal whose lumi is beginning
  Clock::time_point boundarySince_;    // a Boundary wait's begin (if timing)
  Next sharedNext_ = Next::End;        // a shared fetch's claim, written in the queue's task
  bool sharedHeld_ = false;            // ... which took a hold on eventLumi_
  std::uint64_t sharedGeneration_ = 0;  // ... and the generation it parks with
  std::unique_ptr<Source> replica_;
  SourceReads const sourceReads_;
  std::unique_ptr<LimitedTaskQueue> replicaReads_;  // reads from replica_, unless it allows concurrent ones
  std::unique_ptr<ModuleState[]> modules_;
  std::unique_ptr<SourceProductState[]> sourceProducts_;
  std::vector<PathState> paths_;
  std::vector<OutputWaiter> outputWaiters_;  // one per output: a waiter is on one list at a time
  HoldCount pendingPaths_;
  HoldCount pendingOutputs_;
  HoldCount eventPending_;  // the starter and the completion; whoever is last goes on
  bool endedWithin_ = false;  // the event ended within startEvent(), on its thread
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
  // A count of the lane's own, not the job's: a count every event adds to
  // would bounce between the threads' caches at top speed.
  std::uint64_t eventsDone_ = 0;
};

}  // namespace lanes::detail
