#pragma once
// The runs of consecutive ordinals that the lanes of a replicated source
// claimed, each started from its front by its own lane. A lane that has
// finished its run and can claim no other takes the back half of the run
// with the most ordinals left (steal), so that a job does not end with one
// lane busy and the others idle: runs are a file's cluster long, thousands of
// events, and two lanes that read at slightly different speeds would finish
// their last runs far apart.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include <oneapi/tbb/spin_mutex.h>

#include "lanes/core/FastClock.h"

namespace lanes::detail {

// Whether a thief should take `half` ordinals from a lane that spends
// `perEvent` on each, when starting at a new place in the input costs
// `startCost` (a file source reads its branches anew there): worth it when the
// thief, paying the start, still ends well before the lane would have reached
// them. An unknown (zero) `perEvent` is taken as worth it.
bool worthStealing(std::uint64_t half, std::chrono::nanoseconds perEvent, std::chrono::nanoseconds startCost);

// Thread-safe: each lane's run is under a lock of its own, which a thief
// takes to split it, and its lane to take the next few ordinals (as many as
// fill about a millisecond of its events, at most 64: uncontended unless a
// thief splits the run at that moment); no call holds two locks at once.
// take(), assign() and steal() for lane L are called by lane L only; clear()
// only while no lane runs.
class ClaimedRuns {
 public:
  using Clock = std::chrono::steady_clock;

  // `mostGrabbed`: the most ordinals a lane takes from its run at a time
  // (1: a thief may split all that its lane has not begun).
  explicit ClaimedRuns(unsigned lanes, std::uint64_t mostGrabbed = 64);
  ~ClaimedRuns();

  // A part starts: no lane holds a run, the input's end is unknown. `clock`
  // times the lanes' grabs (the job's: a time-stamp counter's read where the
  // monitor calibrated one, not the vDSO's steady_clock, 3% of top speed).
  void clear(FastClock clock = FastClock::steady());
  // `lane` starts the run [first, end) it claimed. `tag` is the caller's
  // note of what the run belongs to (the scheduler's: its lumi), which a
  // thief's half keeps.
  void assign(unsigned lane, std::uint64_t first, std::uint64_t end, void* tag = nullptr);
  // The tag of `lane`'s run.
  void* tag(unsigned lane) const;
  // The next ordinal of `lane`'s run, into `ordinal`; false once it is
  // finished, or at the input's end. (Not an optional: one returned from a
  // call is written a byte and read a word at a time, and the load waits for
  // the store: 4% of the framework's top speed.)
  bool take(unsigned lane, std::uint64_t& ordinal);
  // The input has no event `ordinal`: no run goes on to it.
  void endInputAt(std::uint64_t ordinal);
  // Gives `lane`, whose run is finished, the back half of the run of another
  // lane with the most ordinals left, of those whose next ordinal is at
  // least `floor`, when worthStealing() says so; false if there is no such run.
  bool steal(unsigned lane, std::uint64_t floor = 0);
  // Runs stolen since clear().
  std::uint64_t steals() const { return steals_.load(std::memory_order_relaxed); }

 private:
  struct Run;
  // Gives `run`'s lane its next few ordinals, to take without the lock;
  // false if none is left.
  bool grab(Run& run);
  // The other lane whose run has the most ordinals left, from `floor` on, if any has two.
  std::optional<unsigned> fullest(unsigned lane, std::uint64_t floor) const;
  std::uint64_t inputEnd() const { return inputEnd_.load(std::memory_order_acquire); }

  unsigned const lanes_;
  std::uint64_t const mostGrabbed_;
  FastClock clock_;
  std::unique_ptr<Run[]> runs_;
  std::atomic<std::uint64_t> inputEnd_;
  // What the first event of the latest stolen run took: the price of
  // starting at a new place (0 until one was measured).
  std::atomic<std::int64_t> startCostNs_{0};
  std::atomic<std::uint64_t> steals_{0};
};

}  // namespace lanes::detail
