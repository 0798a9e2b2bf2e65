#pragma once
// Runs and luminosity blocks in flight (DESIGN.md, "Runs, lumis and
// conditions"). The frontier walks the input's stretches (Source::stretchAt)
// in order and hands the lanes runs of ordinals that never cross a lumi. A
// lumi (run) in flight takes one of the job's --concurrent-lumis
// (--concurrent-runs) slots from its begin transition until its end. A slot
// is kept by holds: the frontier's while it is in the block, the begin
// transition's while that runs, and for a lumi one for each lane in it (for
// a run, one for each lumi in flight in it). Whoever lets the last hold go
// starts the end transition, once. A lane whose next lumi finds no slot free
// parks, and the end that frees one wakes it: no thread waits.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <oneapi/tbb/spin_mutex.h>

#include "ConditionsService.h"
#include "LumiNumbering.h"
#include "lanes/core/FastClock.h"
#include "lanes/core/Lumi.h"
#include "lanes/core/ProcessingObserver.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/Source.h"
#include "lanes/core/detail/WaitingList.h"

namespace lanes::detail {

class Schedule;
class Worker;

// The products and the event count of a block in flight. The products come
// first from the source (read as the block begins), then from modules (put
// in its end transition, under putLock: merged where put twice).
struct BlockState {
  BlockState(ProductRegistry const& registry, std::size_t fromSource);
  void clear();

  ProductRegistry const& registry;
  std::size_t const fromSourceCount;
  std::unique_ptr<ProductSlot[]> fromSource;
  std::vector<std::unique_ptr<ProductSlot>> put;
  tbb::spin_mutex putLock;
  std::atomic<std::uint64_t> events{0};
  std::vector<IovSlot*> iovs;  // a lumi's: its interval's slot of each conditions record
};

// A slot for one run or lumi in flight.
struct BlockSlot {
  BlockSlot(Level level, unsigned index, ProductRegistry const& registry, std::size_t fromSource);

  Level const level;
  unsigned const index;
  BlockState state;
  std::atomic<int> holds{0};
  WaitingList begun;        // who waits for the begin transition to end
  bool busy = false;        // under the frontier's lock
  BlockSlot* run = nullptr;  // a lumi's run
  LumiNumber number;
  std::uint64_t entry = 0;   // Block::index()
  std::uint64_t first = 0;   // a lumi's ordinals [first, end): final once the frontier has left it
  std::uint64_t end = 0;
  Clock::time_point openedAt, begunAt;  // (if timing) BlockRecord's opened and begun
  std::unique_ptr<Run> runView;    // what modules see of a run slot
  std::unique_ptr<Lumi> lumiView;  // ... of a lumi slot
  // As an error context and a call record name it: EventId{run, lumi, 0} (lumi 0 for a run).
  EventId id() const { return {number.run, level == Level::Run ? 0u : number.luminosityBlock, 0}; }
};

// What the job counted of its runs and lumis (RunSummary).
struct BoundaryCounts {
  std::uint64_t runs = 0;
  std::uint64_t lumis = 0;
  std::uint64_t repeatedRuns = 0;   // entries whose run the job had seen before (run numbers that go back)
  std::uint64_t repeatedLumis = 0;  // entries whose (run, lumi) the job had seen before (3, 4, 3)
  std::uint64_t emptyLumis = 0;     // lumis without events
};

// Thread-safe: lanes claim ordinals and enter and leave lumis from any
// thread; the frontier is under a lock, but for a lane that claims more of
// the lumi it is in (atomics: see claim()). Transitions run as tasks of the
// job's task_group. build(), start() and finish() only while no lane runs.
class Boundaries {
 public:
  Boundaries(Schedule& schedule, std::optional<LumiNumbering> numbering);
  ~Boundaries();

  // After the modules are built: the slots, the modules' caches, which
  // modules each transition calls, and how many lumis (runs) the job holds
  // in flight: --concurrent-lumis (--concurrent-runs), or one where a `one`
  // module watches them.
  void build();
  unsigned lumiSlots() const { return lumiSlots_; }
  unsigned runSlots() const { return runSlots_; }
  std::vector<std::string> const& lumisSerialisedBy() const { return lumisSerialisedBy_; }
  std::vector<std::string> const& runsSerialisedBy() const { return runsSerialisedBy_; }
  // Whether the job tracks runs and lumis: a module or output has run or
  // lumi callbacks, products or caches, or reads conditions, or the source's
  // SPEC numbers its lumis (events-per-lumi=, ...). A job that does not
  // claims its ordinals as if the input were one lumi (no lumi's boundary
  // cuts a lane's run, none is counted), and its events have no lumi.
  bool tracking() const { return tracking_; }
  // Whether the job numbers the source's runs and lumis (LumiNumbering): an
  // event then takes its run and lumi from the lumi it was claimed in.
  bool numbersLumis() const { return tracking_ && numbering_.has_value(); }

  // A part begins (the frontier at the input's start) and, once every lane
  // and transition is done, ends; throws std::logic_error if a block is
  // still in flight.
  void start();
  BoundaryCounts finish();

  enum class Status { Claimed, Park, End };
  struct Claim {
    std::uint64_t first = 0;
    std::uint64_t end = 0;
    BlockSlot* lumi = nullptr;  // held for the lane now, if it was not in it (else nullptr: the lane's)
  };
  // Up to `count` ordinals of one lumi for a lane that is in lumi `in`
  // (nullptr: none); `source` answers stretchAt() (the lane's copy, or the
  // shared source under its queue). Park: no slot is free for the next lumi
  // (or its run): the lane leaves its lumi, then calls park() with the
  // `generation` set here. End: no more ordinals (the input's end, the
  // event limit, a dispenser that is out, or a halt); the frontier let its
  // holds go. Throws what the source threw (the job then fails).
  Status claim(BlockSlot* in, Source& source, std::uint64_t count, Claim& claim, std::uint64_t& generation);
  // Parks `wake` (a lane's resumption, run as a task) until a slot is
  // freed; false, and nothing parked, if one was freed since claim().
  bool park(std::function<void()> wake, std::uint64_t generation);
  // The frontier lets its holds go (a halt: stop or failure).
  void close();

  // Under the shared source's queue: the event of `ordinal`, if the
  // frontier read it to learn its lumi (a shared source that has no
  // stretchAt()); the source is past it.
  bool takePeeked(std::uint64_t ordinal, SourceEvent& event);

  // A lane takes a hold on the lumi of ordinals it takes from another lane
  // (which holds it meanwhile), and lets its hold go as it leaves, with the
  // events it finished there.
  void hold(BlockSlot& slot) { slot.holds.fetch_add(1, std::memory_order_relaxed); }
  void leave(BlockSlot& lumi, std::uint64_t events);

  // A lane's stream modules' beginRun() (if `newRun`: the lane's last lumi
  // was of another run, or none) and beginLumi() as it enters `lumi`, and
  // endLumi() and endRun() (if `endRun`) as it leaves; one that throws fails
  // the job, and no other is called. A lane enters a lumi once, so its stream modules
  // see it once; a lane that waits at a boundary (parks) ends its run there,
  // and begins it again if the next lumi it takes is of the same run.
  void enterStream(BlockSlot& lumi, bool newRun, unsigned lane);
  void leaveStream(BlockSlot& lumi, bool endRun, unsigned lane);

 private:
  struct Frontier;
  struct RunBegun;
  enum class Step { Claimed, Park, End, Lookup };
  bool watched() const;
  // Untracked: up to `count` ordinals (one from a dispenser), as if the input were one lumi.
  Status claimUntracked(std::uint64_t count, Claim& claim);
  // Where a claim of up to `count` ordinals from `next` in a lumi that ends at `end` stops.
  std::uint64_t share(std::uint64_t next, std::uint64_t end, std::uint64_t count) const;
  // Under the frontier's lock: claims, or opens the next lumi, or says why not.
  Step advance(BlockSlot* in, std::uint64_t count, Claim& claim, std::uint64_t& lookupAt);
  LumiStretch lookup(Source& source, std::uint64_t ordinal);
  // The stretch from `ordinal` on, read through `reader.at()`.
  LumiStretch scan(Source& reader, std::uint64_t ordinal);
  // A shared source's event of `ordinal`, read now: a stretch of one event,
  // which the frontier joins to the next as long as the lumi goes on.
  LumiStretch peek(Source& shared, std::uint64_t ordinal);
  std::uint64_t capped(std::uint64_t end) const;
  // Under the lock.
  bool inFrontierLumi(std::uint64_t ordinal) const;
  BlockSlot* freeSlot(std::vector<std::unique_ptr<BlockSlot>>& slots) const;
  void openRun(BlockSlot& run, std::uint32_t number);
  void openLumi(BlockSlot& lumi, LumiNumber number, std::uint64_t first, std::uint64_t end);
  void leaveFrontierLumi();
  void closeFrontier();

  // Lets one hold of `slot` go; the last one starts its end transition.
  void release(BlockSlot& slot);
  void beginRun(BlockSlot& run);
  void beginLumi(BlockSlot& lumi);
  void beginCalls(BlockSlot& lumi);  // once its run has begun: takes its conditions, then beginLumi()
  void beginLumiCalls(BlockSlot& lumi);
  void resetCaches(BlockSlot& slot);
  void readSourceProducts(BlockSlot& slot);
  void end(BlockSlot& slot);
  // The slot is free again: parked lanes wake.
  void freed(BlockSlot& slot);
  // The block's begin transition ended: its waiting lanes go on.
  void begun(BlockSlot& slot);
  Clock::time_point timeNow() const;
  // Calls each of `workers` (under its gate, if it has one), then `then`.
  void callEach(std::vector<unsigned> const& workers, BlockSlot& slot, Transition transition,
                std::function<void()> then);
  // One module's transition (`instance`: a stream module's lane); false if
  // it threw, or the job has failed and it was not called.
  bool call(unsigned worker, BlockSlot& slot, Transition transition, unsigned instance);
  // A failure (not a stop) halted the job: transitions call no more modules.
  bool failed() const;

  Schedule& schedule_;
  std::optional<LumiNumbering> numbering_;
  bool const lumiOptions_;  // the source's SPEC numbered the lumis (events-per-lumi=, ...)
  bool tracking_ = true;
  std::optional<std::uint64_t> inputEvents_;  // numbered sources: the source's event count
  std::optional<std::pair<std::uint64_t, SourceEvent>> peeked_;  // under the shared source's queue
  std::unique_ptr<Source> blockReader_;       // a copy that reads run and lumi products, under blockReadLock_
  std::mutex blockReadLock_;
  unsigned lumiSlots_ = 1;
  unsigned runSlots_ = 1;
  std::vector<std::string> lumisSerialisedBy_;
  std::vector<std::string> runsSerialisedBy_;
  std::vector<std::unique_ptr<BlockSlot>> lumis_;
  std::vector<std::unique_ptr<BlockSlot>> runs_;
  std::vector<BlockCacheBase*> caches_;
  // The workers each transition calls; stream ones by each lane, as it enters and leaves.
  std::vector<unsigned> beginRun_, endRun_, beginLumi_, endLumi_, writeLumi_, writeRun_;
  std::vector<unsigned> streamBeginRun_, streamEndRun_, streamBeginLumi_, streamEndLumi_;
  std::unique_ptr<Frontier> frontier_;
};

}  // namespace lanes::detail
