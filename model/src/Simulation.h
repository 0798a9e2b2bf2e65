#pragma once
// The simulation's state and its steps (see Simulate.h). Its parts:
//   - the clock: a queue of timed happenings (Timeline);
//   - each process's worker threads, their task deques, and the arena's
//     queue of enqueued tasks (external work's completions);
//   - each thread's stack of frames: the lanes' control flow of
//     core/src/Lane.cpp, interpreted a step at a time (LaneRules.cpp), a
//     thread busy for a call's time whenever a step calls a module;
//   - serial and limited queues (LimitedTaskQueue's rules);
//   - the cores, shared by busy calls when there are fewer than threads (Cores.h);
//   - the emulated device (Device.h).

#include <cstdint>
#include <deque>
#include <limits>
#include <queue>
#include <vector>

#include "Cores.h"
#include "Device.h"
#include "lanes/model/Menu.h"
#include "lanes/model/Prediction.h"
#include "lanes/model/Random.h"

namespace lanes::model::detail {

inline constexpr unsigned kNone = std::numeric_limits<unsigned>::max();

// Something due at a time: a thread's call ends, a device's work, a core's share.
struct Happening {
  enum class Kind : std::uint8_t { ThreadResumes, ThreadWakes, ExternalDone, DeviceDone, CoresDone };
  double time;
  std::uint64_t order;  // ties go in the order they were scheduled
  Kind kind;
  unsigned a, b;
  bool operator>(Happening const& other) const {
    return time != other.time ? time > other.time : order > other.order;
  }
};

// One step of a lane's control flow, on a thread's stack.
struct Frame {
  enum class Kind : std::uint8_t {
    RunLane,             // Lane::run(): a lane's own copy of the source
    FetchShared,         // fetchSharedAndProcess(): push to the shared source's queue
    SourceFetch,         // the source queue's work: next() (and the event's reads)
    ContinueShared,      // its continuation: start the event, fetch again if it ended
    StartEvent,          // startEvent(): paths as tasks, the first one inline
    AdvancePath,         // advancePath()
    PathDone,
    StartOutputs,
    OutputDone,
    EventDone,
    StartModule,         // start(module): its prerequisites, producers inline
    PrerequisiteReady,
    Launch,
    RunModule,
    CallModule,           // runModule() under the module's queue: the call only, its Finish the queue's continuation
    Acquire,
    ProduceAfterAcquire,  // the deferred task that external work's completion enqueues
    Finish,               // markDone(): then its waiters, last added first
    Notify,
    QueueRun,             // LimitedTaskQueue::runFrom
    ReadBatch,            // a lane's batch read of its copy of a file source
    BatchRead,            // its continuation
  };
  Kind kind;
  std::uint8_t phase = 0;
  std::uint8_t item = 0;  // QueueRun: the kind of item it runs (QueueItem::Kind)
  unsigned lane = 0;
  unsigned a = 0;  // the module, path or queue, as the kind says
  unsigned b = 0;  // a loop's position, a prerequisite, or the item's module
};

// What waits on a module (or a source product) to be done.
struct Waiter {
  enum class Kind : std::uint8_t { Prerequisite, Path, Output };
  Kind kind;
  unsigned a, b;  // Prerequisite: module and prerequisite; Path: path; Output: output
};

struct QueueItem {
  enum class Kind : std::uint8_t { GateCall, GateProduce, SourceFetch, ReadBatch };
  Kind kind;
  unsigned lane, module;
};

// LimitedTaskQueue: items run at most `limit` at a time, in push order; a
// task keeps its slot while items wait.
struct LimitedQueue {
  unsigned limit = 1;
  unsigned running = 0;
  std::deque<QueueItem> items;
  unsigned resource = kNone;  // its entry in the resources' busy time
  double since = 0;           // when `running` last changed
};

// What the rules read of a module in every event, kept small: a lane's
// modules' states are read at every call.
struct ModuleState {
  bool claimed = false, done = false, accepted = true;
  unsigned pending = 0;
  unsigned readyNow = 0;
  unsigned announceDue = 0;  // productReady() calls to make before it goes on
  std::vector<Waiter> waiters;
};

// What only some modules use: batch reads, queues, external work.
struct ModuleExtras {
  std::vector<unsigned> toRead;  // source prerequisites it claimed for its batch read
  double queued = 0;        // pushed to its queue
  double acquired = 0;      // acquire() began
  DeviceCall device;        // its device work in this event
};

struct SourceProductState {
  bool claimed = false, done = false;
  std::vector<Waiter> waiters;
};

struct PathState {
  unsigned step = 0;
  bool accepted = true;
};

struct LaneState {
  unsigned process = 0;
  std::vector<ModuleState> modules;
  std::vector<ModuleExtras> extras;  // by module
  std::vector<SourceProductState> sourceProducts;  // only where a lane's copy of a file reads in batches
  std::vector<PathState> paths;
  unsigned pendingPaths = 0, pendingOutputs = 0;
  int eventPending = 0;
  bool finishedInline = false;  // startEvent()'s answer: the event ended before it returned
  bool fetched = false;         // the shared source's queue found an event
  double eventBegan = 0;
  unsigned recorded = 0;  // the recorded event (Menu::recorded) whose calls it replays
  double freeSince = 0;  // the last event ended (an idle wait began)
  unsigned readQueue = kNone;  // its batch reads' serial queue (a lane's copy of a file source)
  DeviceHold device;  // what its event holds of the device
};

// What a thread is busy with when a step has to wait for time to pass.
struct Activity {
  enum class Kind : std::uint8_t { None, Call, Spin };
  Kind kind = Kind::None;
  unsigned module = kNone;  // kNone: the source
  enum class Counts : std::uint8_t { Event, Acquire, ProductReady, Source } counts = Counts::Event;
  double began = 0;
  double sleepAfter = 0;  // the sleeping part, after the CPU part
  double cpu = 0;         // the CPU part's demand
  bool sleeping = false;  // in the sleeping part
};

struct Thread {
  unsigned process = 0;
  std::vector<Frame> stack;
  std::deque<Frame> tasks;  // spawned: its own run last-in first-out, thieves take the oldest
  std::vector<unsigned> continuing;  // the queues whose continuation it runs (LimitedTaskQueue's thread_local)
  Activity activity;
  bool idle = false;
  double busySince = 0;
  unsigned withTasksAt = 0;  // its place in its process's withTasks, while it has tasks
};

struct Process {
  std::vector<unsigned> threads;     // global thread indices
  std::vector<unsigned> idle;        // idle ones
  std::deque<Frame> enqueued;        // task_arena::enqueue: external work's completions
  std::vector<unsigned> withTasks;   // threads whose deque holds tasks (thieves choose among them)
  std::vector<unsigned> gates;       // by module: its queue, or kNone
  unsigned sourceQueue = kNone;
  unsigned device = 0;
  // The events it may still take: a chunk of the shared queue, or its
  // round-robin share.
  std::uint64_t claimable = 0;
  double lastEventDone = 0;
};

class Simulation {
 public:
  Simulation(Menu const& menu, Layout const& layout);
  Prediction run();

 private:
  friend class DeviceModel;
  // ---- the clock (Simulation.cpp)
  void schedule(double time, Happening::Kind kind, unsigned a, unsigned b = 0);
  void dispatch(Happening const& happening);
  // ---- threads and tasks (Simulation.cpp)
  void spawn(unsigned thread, Frame frame);
  void enqueue(unsigned process, Frame frame);
  void wakeOne(unsigned process);
  void dropFromThieves(unsigned thread);
  bool findTask(unsigned thread);
  void runThread(unsigned thread);
  void goIdle(unsigned thread);
  // ---- timed activities (Simulation.cpp)
  void call(unsigned thread, unsigned module, Activity::Counts counts, double seconds, bool sleeps);
  void spin(unsigned thread, unsigned module);
  void activityDone(unsigned thread);
  void cpuPartDone(unsigned thread);
  void rescheduleCores();
  // ---- events (Simulation.cpp): lumi boundaries would gate admitEvent()
  bool admitEvent(unsigned lane);
  // A call's time: the lane's recorded event's, when the trace has it, else drawn.
  double eventSeconds(unsigned lane, unsigned module);
  double acquireSeconds(unsigned lane, unsigned module);
  void beginEvent(unsigned lane);
  void endEvent(unsigned lane);
  void idleUntilNow(unsigned lane);
  // ---- the lanes' rules (LaneRules.cpp): a step of the thread's top frame,
  // which may start a timed activity (the thread then waits for it).
  void step(unsigned thread);
  void runLane(unsigned thread, Frame& frame);
  void sourceFetch(unsigned thread, Frame& frame);
  void continueShared(unsigned thread, Frame& frame);
  void startEvent(unsigned thread, Frame& frame);
  void advancePath(unsigned thread, Frame& frame);
  void startOutputs(unsigned thread, Frame& frame);
  void eventDone(unsigned thread, Frame& frame);
  void startModule(unsigned thread, Frame& frame);
  void ensureSourceProduct(unsigned lane, unsigned module, unsigned k);
  void ready(unsigned lane, unsigned module, unsigned k);
  void announce(unsigned thread, unsigned lane, unsigned module, unsigned calls);
  void finishStart(unsigned thread, Frame& frame);
  void prerequisiteReady(unsigned thread, Frame& frame);
  void launch(unsigned thread, Frame& frame);
  void runModule(unsigned thread, Frame& frame);
  void acquire(unsigned thread, Frame& frame);
  void produceAfterAcquire(unsigned thread, Frame& frame);
  void finish(unsigned thread, Frame& frame);
  void notify(unsigned thread, Frame& frame);
  void queueRun(unsigned thread, Frame& frame);
  void batchRead(unsigned thread, Frame& frame);
  Frame waiterFrame(unsigned lane, Waiter const& waiter) const;
  void addWaiter(std::vector<Waiter>& waiters, Waiter waiter) { waiters.push_back(waiter); }
  // ---- queues (LaneRules.cpp)
  void push(unsigned thread, unsigned queue, QueueItem item);
  void startWhileAllowed(unsigned thread, unsigned queue);
  void setRunning(unsigned queue, unsigned running);
  Frame workOf(QueueItem const& item) const;
  // Every item but an external module's acquire(), whose module goes on when its work completes.
  bool hasContinuation(QueueItem const& item) const {
    return item.kind != QueueItem::Kind::GateCall || !menu_.modules[item.module].externalWork;
  }
  Frame continuationOf(QueueItem const& item) const;
  // ---- external work (LaneRules.cpp): its completion, from the device or a timer
  void resume(unsigned lane, unsigned module);
  void spinDone(unsigned thread);
  // ---- accounting (Simulation.cpp)
  unsigned addResource(std::string name, std::string kind, unsigned capacity);
  void busy(unsigned resource, double seconds) { prediction_.resources[resource].busySeconds += seconds; }
  void held(unsigned resource, double seconds) { prediction_.resources[resource].heldSeconds += seconds; }
  Prediction finishPrediction();

  Menu const& menu_;
  Layout const layout_;
  Random random_;
  double now_ = 0;
  std::uint64_t order_ = 0;
  std::priority_queue<Happening, std::vector<Happening>, std::greater<>> timeline_;
  std::vector<Thread> threads_;
  std::vector<Process> processes_;
  std::vector<LaneState> lanes_;
  std::vector<LimitedQueue> queues_;
  Cores cores_;
  unsigned coresVersion_ = 0;  // a CoresDone of another version is stale
  std::deque<DeviceModel> devices_;  // a deque: a device's parts point at each other
  // The menu as the rules read it, made once.
  std::vector<std::vector<unsigned>> coordinated_;  // by module: prerequisites not read for it alone
  // By module: the source products ready at once for it (all of them, unless a lane's copy of a file reads
  // them in batches: then those only it consumes, which its own batch reads).
  std::vector<std::vector<unsigned>> solo_;
  std::vector<std::vector<bool>> deviceInput_;      // by module and prerequisite: a product left on the device
  std::uint64_t unclaimed_ = 0;  // events no process has taken yet
  std::uint64_t begun_ = 0;      // events begun: the next replays recorded event begun_ % recorded
  Prediction prediction_;
  double threadSeconds_ = 0;  // threads not idle
  std::vector<double> acquireTotals_, externalWaits_;  // by module
  std::vector<unsigned> gateResource_;  // by module: its queues' resource entry, or kNone
  unsigned sourceResource_ = kNone;
};

}  // namespace lanes::model::detail
