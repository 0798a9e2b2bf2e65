#pragma once
// Per-module call counts and times, gathered from the observer hooks. Each
// calling thread adds into its own accumulator, on cache lines of its own and
// found through a thread-local cache, so concurrent calls never contend; the
// accumulators are merged when read.
//
// What counts where:
//   - a module's calls: its Acquire and Event calls; its time: those and its
//     ProductReady calls (an output's per-product work is its own);
//   - a module's waits: its Queue waits (its stall), External and Conditions waits;
//   - a lane's idle time: its Idle waits; its boundary wait: its Boundary waits;
//   - a module's run and lumi transitions, each kind apart (transitions);
//   - time in source: every call whose module is kSourceProducer;
//   - time in outputs: every Acquire, Event and ProductReady call of a module
//     whose kind is Output.
// Other transitions (beginJob, endJob, ...) are not counted.
//
// In a job whose timing is sampled (JobInfo::timingSample > 1) every call is
// counted and only the timed ones are summed; totals() then gives estimates:
// each module's, the source's and the outputs' sums and waits scaled by their
// calls / timed calls, the lanes' idle time by the source's.

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <vector>

#include <nlohmann/json.hpp>
#include <tbb/enumerable_thread_specific.h>

#include "lanes/core/ProcessingObserver.h"
#include "lanes/monitor/LogHistogram.h"

namespace lanes {

// Externally synchronised by its owner (a plain value): a number of calls and
// their summed duration.
struct CallTotals {
  std::uint64_t calls = 0;
  Clock::duration time{};
  std::uint64_t events = 0;  // Event calls among them (an output's: the events it wrote)
  std::uint64_t timed = 0;   // calls among them that were timed (all but a sampled job's untimed ones)

  double seconds() const { return std::chrono::duration<double>(time).count(); }
  CallTotals& operator+=(CallTotals const& other);
};

// Externally synchronised by its owner (a plain value): what one module's
// calls waited for.
struct WaitTotals {
  Clock::duration queue{};     // runnable, waiting for the module's queue: its stall
  Clock::duration external{};  // External waits, the acquire() calls in them included
  Clock::duration acquire{};   // those acquire() calls
  Clock::duration conditions{};  // waiting for a conditions payload of the event's interval to load

  double stallSeconds() const { return std::chrono::duration<double>(queue).count(); }
  // The external work's own time: the External waits less the acquire() calls.
  double externalSeconds() const;
  WaitTotals& operator+=(WaitTotals const& other);
};

// Externally synchronised by its owner (a plain value): the distributions of
// one module's timed calls and external waits (the acquire() call included),
// or of the source's next() and read calls.
struct CallTimes {
  LogHistogram event;         // Event calls; the source's: next()
  LogHistogram acquire;       // Acquire calls; the source's: its reads (SourceRead)
  LogHistogram productReady;  // ProductReady calls
  LogHistogram external;      // External waits

  enum Kind : std::uint32_t { kEvent, kAcquire, kProductReady, kExternal, kKinds };
  LogHistogram& operator[](Kind kind);
  CallTimes& operator+=(CallTimes const& other);
};

// The run and lumi transitions, in the order kBlockTransitions lists them.
inline constexpr Transition kBlockTransitions[] = {Transition::BeginRun,  Transition::BeginLumi, Transition::EndLumi,
                                                   Transition::EndRun,    Transition::WriteLumi, Transition::WriteRun};
inline constexpr std::size_t kBlockTransitionCount = std::size(kBlockTransitions);
using BlockTransitionTotals = std::array<CallTotals, kBlockTransitionCount>;

// Thread-safe: callFinished() and waitFinished() may be called concurrently
// from any thread, once jobStarted() has returned. totals() merges the
// per-thread accumulators and must not overlap with those calls: call it
// after jobFinished().
class ModuleStatistics : public ProcessingObserver {
 public:
  struct Totals {
    std::vector<CallTotals> modules;  // indexed like JobInfo::modules
    std::vector<WaitTotals> waits;    // indexed like JobInfo::modules
    std::vector<Clock::duration> laneIdle;  // by lane
    std::vector<Clock::duration> laneBoundary;  // by lane
    std::vector<BlockTransitionTotals> transitions;  // indexed like JobInfo::modules
    CallTotals source;
    CallTotals outputs;
    std::uint64_t timedCalls = 0;  // every timed call record received (what the monitor's timing cost: see MonitorCost)
    std::uint64_t timedWaits = 0;  // every wait record received
    unsigned timingSample = 1;     // JobInfo::timingSample: above 1, the times are estimates
  };

  ModuleStatistics();
  unsigned hooks() const override { return kCalls | kWaits; }
  void jobStarted(JobInfo const& info) override;
  void callFinished(CallRecord const& record) override;
  void waitFinished(WaitRecord const& record) override;

  Totals totals() const;
  // The timed calls' distributions, for `lanes model`: {buckets_per_octave,
  // modules: [{event, acquire, product_ready, external}] indexed like
  // JobInfo::modules, each only when it has any, source: {next, read}}, each
  // a LogHistogram's compact JSON ([first, counts...]) in 8 buckets to an
  // octave (9% wide: a report of a thousand modules stays small).
  // Like totals(), after jobFinished().
  nlohmann::json callTimesJson() const;
  static constexpr int kCallTimeBucketsPerOctave = 8;

 private:
  // Arrays whose allocations start and end on cache-line boundaries, so that
  // no two threads' sums share a line.
  template <class T>
  struct CacheLineAllocator {
    using value_type = T;
    CacheLineAllocator() = default;
    template <class U>
    CacheLineAllocator(CacheLineAllocator<U> const&) {}
    // A line pair, as oneTBB pads: a CPU may prefetch the line next to one it loads.
    static constexpr std::size_t kLine = 128;
    T* allocate(std::size_t n) {
      auto const bytes = (n * sizeof(T) + kLine - 1) / kLine * kLine;
      return static_cast<T*>(::operator new(bytes, std::align_val_t{kLine}));
    }
    void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{kLine}); }
    bool operator==(CacheLineAllocator const&) const { return true; }
    bool operator!=(CacheLineAllocator const&) const { return false; }
  };
  template <class T>
  using Lines = std::vector<T, CacheLineAllocator<T>>;
  // A timed call's time not yet in its histogram: slot module * kKinds +
  // kind, the source's after the modules'. A thread's times go into their
  // histograms kPendingTimes at a time: added one by one between the lanes'
  // other work, each waited on its bucket's table lookups (at top speed the
  // monitor's histograms took a seventh of the rate), where a loop over a
  // batch overlaps them. Kept in nanoseconds: the conversion into seconds is
  // the batch's too.
  struct PendingTime {
    std::uint32_t slot;
    float nanoseconds;
  };
  static constexpr std::size_t kPendingTimes = 1024;
  // One calling thread's sums.
  struct Accumulator {
    std::vector<PendingTime> pendingTimes;  // at most kPendingTimes, for callTimes and sourceTimes
    Lines<CallTotals> modules;
    Lines<WaitTotals> waits;
    Lines<Clock::duration> laneIdle;
    std::vector<CallTimes> callTimes;  // by module
    CallTimes sourceTimes;
    Lines<Clock::duration> laneBoundary;
    // Sized at a thread's first transition: most threads of most jobs have none.
    std::vector<BlockTransitionTotals> transitions;
    CallTotals source;
    CallTotals outputs;
    std::uint64_t timedCalls = 0;
    std::uint64_t timedWaits = 0;
  };
  Accumulator& local();
  Accumulator& firstUse();
  void addTime(Accumulator& accumulator, std::size_t module, CallTimes::Kind kind, Clock::duration time) const;
  // The histogram of `slot` among `modules` and then `source`.
  static LogHistogram& histogramOf(std::uint32_t slot, std::vector<CallTimes>& modules, CallTimes& source);
  static void addPending(std::vector<PendingTime> const& pending, std::vector<CallTimes>& modules, CallTimes& source);

  std::vector<bool> isOutput_;  // by module index
  unsigned lanes_ = 0;
  unsigned timingSample_ = 1;
  // Names this statistics' current job for the threads' caches (a new one per
  // jobStarted(), as the accumulators are then cleared).
  std::uint64_t generation_ = 0;
  tbb::enumerable_thread_specific<Accumulator> perThread_;
};

}  // namespace lanes
