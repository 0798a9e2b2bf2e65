#include "lanes/core/detail/ClaimedRuns.h"

#include <algorithm>
#include <limits>

namespace lanes::detail {

namespace {
constexpr auto kUnknownEnd = std::numeric_limits<std::uint64_t>::max();
using Lock = tbb::spin_mutex::scoped_lock;
}  // namespace

bool worthStealing(std::uint64_t half, std::chrono::nanoseconds perEvent, std::chrono::nanoseconds startCost) {
  if (half == 0) return false;
  if (perEvent.count() <= 0) return true;
  // The thief ends `startCost` after the lane ends the half it keeps, where
  // the lane alone would have taken another half: a margin of one start more.
  return static_cast<double>(half) * static_cast<double>(perEvent.count()) > 2.0 * static_cast<double>(startCost.count());
}

// On cache lines of its own: its lane writes it at every event.
struct alignas(128) ClaimedRuns::Run {
  tbb::spin_mutex lock;
  std::uint64_t next = 0;
  std::uint64_t end = 0;
  std::uint64_t first = 0;      // where the run began
  Clock::time_point began;      // when
  Clock::time_point firstDone;  // when its first event was done (its lane took the second)
  bool stolen = false;

  std::uint64_t left(std::uint64_t inputEnd) const {
    auto const last = std::min(end, inputEnd);
    return last > next ? last - next : 0;
  }
  // What an event of the run took: the time since the first was done over
  // the events taken since (one may be in progress); 0 until the second.
  std::chrono::nanoseconds perEvent(Clock::time_point now) const {
    auto const after = next > first ? next - first - 1 : 0;
    if (after == 0) return {};
    return std::chrono::duration_cast<std::chrono::nanoseconds>(now - firstDone) / static_cast<std::int64_t>(after);
  }
  void start(std::uint64_t from, std::uint64_t to, Clock::time_point now, bool steal) {
    next = first = from;
    end = to;
    began = firstDone = now;
    stolen = steal;
  }
};

ClaimedRuns::ClaimedRuns(unsigned lanes) : lanes_(lanes), runs_(std::make_unique<Run[]>(lanes)) { clear(); }

ClaimedRuns::~ClaimedRuns() = default;

void ClaimedRuns::clear() {
  for (unsigned lane = 0; lane < lanes_; ++lane) runs_[lane].start(0, 0, {}, false);
  inputEnd_.store(kUnknownEnd, std::memory_order_release);
  startCostNs_.store(0, std::memory_order_relaxed);
  steals_.store(0, std::memory_order_relaxed);
}

void ClaimedRuns::assign(unsigned lane, std::uint64_t first, std::uint64_t end) {
  auto& run = runs_[lane];
  auto const now = Clock::now();
  Lock const hold(run.lock);
  run.start(first, end, now, false);
}

std::optional<std::uint64_t> ClaimedRuns::take(unsigned lane) {
  auto& run = runs_[lane];
  Lock const hold(run.lock);
  if (run.left(inputEnd()) == 0) return std::nullopt;
  if (run.next == run.first + 1) {
    run.firstDone = Clock::now();
    if (run.stolen) startCostNs_.store((run.firstDone - run.began).count(), std::memory_order_relaxed);
  }
  return run.next++;
}

void ClaimedRuns::endInputAt(std::uint64_t ordinal) {
  auto known = inputEnd_.load(std::memory_order_acquire);
  while (ordinal < known && !inputEnd_.compare_exchange_weak(known, ordinal, std::memory_order_acq_rel)) {
  }
}

std::optional<unsigned> ClaimedRuns::fullest(unsigned lane) const {
  std::optional<unsigned> fullest;
  std::uint64_t most = 1;
  for (unsigned other = 0; other < lanes_; ++other) {
    if (other == lane) continue;
    auto& run = runs_[other];
    Lock const hold(run.lock);
    if (auto const left = run.left(inputEnd()); left > most) {
      most = left;
      fullest = other;
    }
  }
  return fullest;
}

bool ClaimedRuns::steal(unsigned lane) {
  auto const victimLane = fullest(lane);
  if (!victimLane) return false;
  auto& thief = runs_[lane];
  auto& victim = runs_[*victimLane];
  auto const now = Clock::now();
  std::chrono::nanoseconds ownPerEvent;
  {
    Lock const hold(thief.lock);
    ownPerEvent = thief.perEvent(now);
  }
  auto const startCost = std::chrono::nanoseconds(startCostNs_.load(std::memory_order_relaxed));
  std::uint64_t first = 0, end = 0;
  {
    Lock const hold(victim.lock);
    // The run went on since fullest() looked, and the input's end may come
    // nearer at any time: read once, so that the half is of what is left.
    end = std::min(victim.end, inputEnd());
    auto const half = end > victim.next ? (end - victim.next) / 2 : 0;
    auto const perEvent = victim.perEvent(now);
    if (!worthStealing(half, perEvent.count() > 0 ? perEvent : ownPerEvent, startCost)) return false;
    first = end - half;
    victim.end = first;
  }
  {
    Lock const hold(thief.lock);
    thief.start(first, end, now, true);
  }
  steals_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace lanes::detail
