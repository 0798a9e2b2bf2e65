#pragma once
// The hooks through which the monitor layer watches a job. The core calls
// them; it neither times nor aggregates anything itself beyond the clock
// reads it hands over: two around each call, one at each end of an event,
// each read shared wherever one moment ends one thing and begins another
// (a wait and the call it held back, a source's next() and its event).

#include <chrono>
#include <string>
#include <vector>

#include "lanes/core/EventId.h"
#include "lanes/core/Lumi.h"
#include "lanes/core/Exception.h"
#include "lanes/core/FastClock.h"
#include "lanes/core/Module.h"
#include "lanes/core/Product.h"
#include "lanes/core/ProductRegistry.h"

namespace lanes {

using Clock = std::chrono::steady_clock;

// The time of what a job whose timing is sampled did not time (see ProcessingObserver).
inline constexpr Clock::time_point kUntimed{};

// The lane of a call that belongs to no lane: a run or lumi transition.
inline constexpr unsigned kNoLane = ~0u;

// One module call, source access or output call, as it happened. A run or
// lumi transition's call has lane kNoLane and event EventId{run, lumi, 0}.
struct CallRecord {
  unsigned module;  // index into JobInfo::modules, or kSourceProducer
  Transition transition;
  unsigned lane;
  EventId event;
  Clock::time_point begin;
  Clock::time_point end;
  bool timed = true;  // false: counted, not timed (a sampled job's untimed event; begin and end kUntimed)
};

// A wait that is no call: what a lane or a module call waited for, from the
// moment it could go on but for that, to the moment it went on.
enum class WaitKind {
  Queue,     // a `one`/`limited` module's call, runnable (its inputs present), waiting for the module's queue
  External,  // external work: from the start of acquire() (its call included) to the completion
  Idle,      // a lane without an event: from the end of its last event (or the part's start) to the
             // source's next(), or to the moment it finds no more events (its event is then EventId{}); none is
             // reported for a lane that went straight on to its next event in the same lumi: its source
             // next() begins as its last event ended, and includes its claim of the event
  Conditions,  // a module's call, waiting for a conditions payload of its event's interval to load
  Boundary,  // a lane whose next event's lumi (or run) cannot begin yet: no slot is free (--concurrent-lumis,
             // --concurrent-runs), or its begin transition runs; `module` is kSourceProducer, `event` EventId{};
             // within the lane's Idle wait, which it does not end
};
char const* toString(WaitKind kind);

struct WaitRecord {
  unsigned module;  // index into JobInfo::modules; kSourceProducer for Idle
  WaitKind kind;
  unsigned lane;
  EventId event;  // the event that waited (Idle: the one the lane then began, if any)
  Clock::time_point begin;
  Clock::time_point end;
};

enum class EventStatus { Done, Failed };

// A run or lumi as the job went through it: when it took its slot (the
// frontier reached it), when its begin transition ended (its events could
// start), and when its end transition ended (its slot was free again).
struct BlockRecord {
  Level level;
  EventId id;             // EventId{run, lumi, 0}; lumi 0 for a run
  std::uint64_t entry;    // Block::index()
  unsigned slot;          // Block::slot(): the blocks of one slot never overlap in time
  std::uint64_t events;   // its events that finished without error
  Clock::time_point opened;
  Clock::time_point begun;
  Clock::time_point ended;
};

// How a path ended for one event: `step` modules of it passed; the module at
// `step` (if any) rejected the event (Rejected) or the event failed (Failed).
enum class PathStatus { Accepted, Rejected, Failed };

// What a module waits for before it runs: a producer module, or a product of the source.
struct PrerequisiteInfo {
  unsigned producer;     // index into JobInfo::modules, or kSourceProducer
  ProductIndex product;  // the source's product (for a module: the first of its products consumed)
  unsigned products;     // the products of it an output announces (productReady()); else 0
};

struct ModuleInfo {
  std::string label;
  std::string plugin;
  ModuleKind kind;
  Concurrency concurrency;
  // How the scheduler drives it (what `lanes model` replays): the calls a
  // `limited` module's queue lets run at once (1 for `one`), whether it has
  // external work, whether it is an output that asks for productReady(), and
  // its prerequisites in the order the scheduler ensures them.
  unsigned concurrencyLimit = 1;
  bool externalWork = false;
  bool productReady = false;
  std::vector<PrerequisiteInfo> prerequisites{};
};

struct PathInfo {
  std::string name;
  std::vector<unsigned> modules;  // indices into JobInfo::modules, in order
};

// An output and the paths whose acceptance selects the events it writes.
struct OutputInfo {
  unsigned module;                   // index into JobInfo::modules
  std::vector<unsigned> selectPaths;  // indices into JobInfo::paths; empty: every event
};

// How the lanes get their events' products from the source.
enum class SourceReads {
  Inline,        // each where a module needs it (products from memory)
  WithTheEvent,  // all the consumed ones as the event is fetched, under the shared source's queue
  Batched,       // a module's in one batch under its lane's serial queue (a lane's copy of a file source)
};
char const* toString(SourceReads reads);

struct JobInfo {
  unsigned threads;
  unsigned lanes;
  std::vector<ModuleInfo> modules;
  std::string source;
  std::uint64_t expectedEvents = 0;  // the events the job will process when known before it starts (0: unknown)
  std::vector<PathInfo> paths{};
  unsigned timingSample = 1;  // JobConfig::timingSample: each lane times one event in this many
  std::vector<OutputInfo> outputs{};
  bool replicatedSource = false;  // each lane has its own copy of the source (else one, under a serial queue)
  SourceReads sourceReads = SourceReads::Inline;
  // Lumis and runs in flight at once, as the job holds them (JobConfig's, or
  // 1 where `one` modules watch them: these name them).
  bool lumisTracked = false;  // whether the job tracks runs and lumis (Event::lumi())
  unsigned concurrentLumis = 1;
  unsigned concurrentRuns = 1;
  std::vector<std::string> lumisSerialisedBy{};
  std::vector<std::string> runsSerialisedBy{};
  // The clock the job's records are read on. An observer that stamps what
  // happens inside a call (a trace's arrows) reads it too, so that its times
  // fall within the call's: steady_clock and the calibrated counter may differ
  // by a few nanoseconds.
  FastClock clock{};
};

// Thread-safe: the per-event hooks are called concurrently from the job's
// worker threads, never from a foreign thread that completes external work
// (its External wait is reported by the task that resumes the lane);
// jobStarted() and jobFinished() from the thread that runs the job. For one
// lane, eventStarted(), its pathFinished() and eventFinished() follow each
// other in that order, each happening before the next.
//
// A call that became runnable and started at once has no wait: a module that
// no queue serialises starts when its last input arrives, so a Queue wait is
// reported only for `one`/`limited` modules (and always for them, even when
// it lasted no time). Clocks are read only while someone observes. An
// interval whose ends were read on two threads (a wait, an event) may end a
// few tens of nanoseconds before it begins (see FastClock).
//
// A job whose timing is sampled (JobInfo::timingSample N > 1) times one
// event in N of each lane exactly, with the Idle wait before it (if any); it reads no
// clock for the others. Their calls are still reported, with begin and end
// kUntimed (CallRecord::timed false); their waits are not reported; their
// eventStarted() and eventFinished() get `when` kUntimed; pathFinished() is
// called for every event.
class ProcessingObserver {
 public:
  // What an observer listens to: the core calls the per-call and per-event
  // hooks of only those observers that listen to them (hooks(), asked as
  // each job starts); jobStarted() and jobFinished() go to every observer.
  enum Hooks : unsigned {
    kCalls = 1,   // callFinished()
    kWaits = 2,   // waitFinished()
    kEvents = 4,  // eventStarted(), pathFinished(), eventFinished()
    kBlocks = 8,  // blockFinished()
    kAll = kCalls | kWaits | kEvents | kBlocks,
  };
  virtual ~ProcessingObserver() = default;
  virtual unsigned hooks() const { return kAll; }
  virtual void jobStarted(JobInfo const&) {}
  virtual void callFinished(CallRecord const&) {}
  virtual void waitFinished(WaitRecord const&) {}
  // `when`: the end of the source's next() that read the event.
  virtual void eventStarted(unsigned /*lane*/, EventId const&, Clock::time_point /*when*/) {}
  virtual void pathFinished(unsigned /*lane*/, unsigned /*path*/, PathStatus, unsigned /*step*/) {}
  // `when`: as the event finished, which frees its lane.
  virtual void eventFinished(unsigned /*lane*/, EventId const&, EventStatus, Clock::time_point /*when*/) {}
  // Each run and lumi, once its end transition ended (the lumis of a run
  // before the run), from any thread; times kUntimed unless timed.
  virtual void blockFinished(BlockRecord const&) {}
  virtual void jobFinished() {}
};

}  // namespace lanes
