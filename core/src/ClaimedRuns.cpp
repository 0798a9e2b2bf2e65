#include "lanes/core/detail/ClaimedRuns.h"

#include <algorithm>
#include <limits>

namespace lanes::detail {

namespace {
constexpr auto kUnknownEnd = std::numeric_limits<std::uint64_t>::max();
// A lane takes from its run as many ordinals at a time as fill about this
// much of its time (and at most ClaimedRuns' mostGrabbed): at the framework's
// top speed a lock per event cost 13% of the rate, and a thief still finds
// all but a millisecond of a run to split.
constexpr auto kGrabSpan = std::chrono::milliseconds(1);
using Lock = tbb::spin_mutex::scoped_lock;
}  // namespace

bool worthStealing(std::uint64_t half, std::chrono::nanoseconds perEvent, std::chrono::nanoseconds startCost) {
  if (half == 0) return false;
  if (perEvent.count() <= 0) return true;
  // The thief ends `startCost` after the lane ends the half it keeps, where
  // the lane alone would have taken another half: a margin of one start more.
  return static_cast<double>(half) * static_cast<double>(perEvent.count()) > 2.0 * static_cast<double>(startCost.count());
}

// On cache lines of its own: its lane writes it as it takes ordinals.
struct alignas(128) ClaimedRuns::Run {
  // Its lane's alone: the ordinals it grabbed, [cursor, grabEnd).
  std::uint64_t cursor = 0;
  std::uint64_t grabEnd = 0;
  // Under the lock: the rest of the run, [next, end), which a thief may split.
  tbb::spin_mutex lock;
  std::uint64_t next = 0;
  std::uint64_t end = 0;
  // Kept from run to run: when its lane last grabbed, how many, and what an
  // event of the lane took by the grab before (0: not known yet).
  Clock::time_point lastGrab;
  std::uint64_t lastGrabbed = 0;
  std::chrono::nanoseconds pace{0};
  bool stolen = false;  // a stolen run whose first event is not done yet
  void* tag = nullptr;  // its lane's alone, as the cursor; a thief copies it under the lock

  std::uint64_t left(std::uint64_t inputEnd) const {
    auto const last = std::min(end, inputEnd);
    return last > next ? last - next : 0;
  }
  void start(std::uint64_t from, std::uint64_t to) {
    cursor = grabEnd = next = from;
    end = to;
  }
};

ClaimedRuns::ClaimedRuns(unsigned lanes, std::uint64_t mostGrabbed)
    : lanes_(lanes), mostGrabbed_(std::max<std::uint64_t>(1, mostGrabbed)), runs_(std::make_unique<Run[]>(lanes)) {
  clear();
}

ClaimedRuns::~ClaimedRuns() = default;

void ClaimedRuns::clear(FastClock clock) {
  clock_ = clock;
  for (unsigned lane = 0; lane < lanes_; ++lane) {
    auto& run = runs_[lane];
    run.start(0, 0);
    run.lastGrab = {};
    run.lastGrabbed = 0;
    run.pace = {};
    run.stolen = false;
  }
  inputEnd_.store(kUnknownEnd, std::memory_order_release);
  startCostNs_.store(0, std::memory_order_relaxed);
  steals_.store(0, std::memory_order_relaxed);
}

void ClaimedRuns::assign(unsigned lane, std::uint64_t first, std::uint64_t end, void* tag) {
  auto& run = runs_[lane];
  Lock const hold(run.lock);
  run.start(first, end);
  run.stolen = false;
  run.tag = tag;
}

void* ClaimedRuns::tag(unsigned lane) const { return runs_[lane].tag; }

bool ClaimedRuns::take(unsigned lane, std::uint64_t& ordinal) {
  auto& run = runs_[lane];
  if (run.cursor >= std::min(run.grabEnd, inputEnd()) && !grab(run)) return false;
  ordinal = run.cursor++;
  return true;
}

bool ClaimedRuns::grab(Run& run) {
  auto const now = clock_.now();
  Lock const hold(run.lock);
  // Its lane comes back once it has done all it grabbed last time.
  if (run.lastGrabbed > 0) {
    // A lane moves between threads, whose reads of the clock may differ by tens of nanoseconds (FastClock).
    auto const took = std::max(std::chrono::nanoseconds::zero(),
                               std::chrono::duration_cast<std::chrono::nanoseconds>(now - run.lastGrab)) /
                      static_cast<std::int64_t>(run.lastGrabbed);
    if (run.stolen) {
      startCostNs_.store(took.count(), std::memory_order_relaxed);  // the first event of a stolen run, grabbed alone
      run.stolen = false;
    } else {
      run.pace = took;
    }
  }
  run.lastGrab = now;
  run.lastGrabbed = 0;
  auto const left = run.left(inputEnd());
  if (left == 0) return false;
  std::uint64_t grabbed = 1;
  if (!run.stolen && run.pace.count() > 0) {
    grabbed = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(kGrabSpan / run.pace), 1, mostGrabbed_);
  }
  run.lastGrabbed = std::min(grabbed, left);
  run.cursor = run.next;
  run.grabEnd = run.next += run.lastGrabbed;
  return true;
}

void ClaimedRuns::endInputAt(std::uint64_t ordinal) {
  auto known = inputEnd_.load(std::memory_order_acquire);
  while (ordinal < known && !inputEnd_.compare_exchange_weak(known, ordinal, std::memory_order_acq_rel)) {
  }
}

std::optional<unsigned> ClaimedRuns::fullest(unsigned lane, std::uint64_t floor) const {
  std::optional<unsigned> fullest;
  std::uint64_t most = 1;
  for (unsigned other = 0; other < lanes_; ++other) {
    if (other == lane) continue;
    auto& run = runs_[other];
    Lock const hold(run.lock);
    if (auto const left = run.left(inputEnd()); left > most && run.next >= floor) {
      most = left;
      fullest = other;
    }
  }
  return fullest;
}

bool ClaimedRuns::steal(unsigned lane, std::uint64_t floor) {
  auto const victimLane = fullest(lane, floor);
  if (!victimLane) return false;
  auto& thief = runs_[lane];
  auto& victim = runs_[*victimLane];
  std::chrono::nanoseconds ownPace;
  {
    Lock const hold(thief.lock);
    ownPace = thief.pace;
  }
  auto const startCost = std::chrono::nanoseconds(startCostNs_.load(std::memory_order_relaxed));
  std::uint64_t first = 0, end = 0;
  void* tag = nullptr;
  {
    Lock const hold(victim.lock);
    // The run went on since fullest() looked, and the input's end may come
    // nearer at any time: read once, so that the half is of what is left.
    end = std::min(victim.end, inputEnd());
    auto const half = end > victim.next ? (end - victim.next) / 2 : 0;
    if (!worthStealing(half, victim.pace.count() > 0 ? victim.pace : ownPace, startCost)) return false;
    first = end - half;
    victim.end = first;
    tag = victim.tag;
  }
  auto const now = clock_.now();
  {
    Lock const hold(thief.lock);
    thief.start(first, end);
    thief.stolen = true;  // its first event is grabbed alone, to measure the start
    thief.tag = tag;
    thief.lastGrab = now;
    thief.lastGrabbed = 0;
  }
  steals_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace lanes::detail
