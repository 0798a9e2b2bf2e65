#pragma once
// Serialisation without parking threads: tasks pushed to the queue run as
// oneTBB tasks, at most `limit` at a time, in push order. A limit of 1 is a
// serial queue (a `one` module, a shared source).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/task_group.h>

namespace lanes {

// Whether a queue's continuation runs in the task that holds the slot, just
// before the next waiting item, or goes to a task of its own: in place while
// continuations take under 1/16 of the serialised work. A shared source's
// event is read in hundreds of microseconds and, by a job that only counts
// it, processed in ten: handing that to another thread costs more than it
// saves (the other thread woken, the event's state moving to its core), and
// doing it in place delays the next read by under 1/16. A real job's
// processing is far longer than its read, and goes to other threads.
// Thread-safe: the averages are updated from any thread without a lock; a
// lost update only leaves an average a little older.
class ContinuationPolicy {
 public:
  void workTook(std::chrono::nanoseconds took) { blend(work_, took); }
  void continuationTook(std::chrono::nanoseconds took) { blend(continuation_, took); }
  // False until both have been seen.
  bool inPlace() const {
    auto const continuation = continuation_.load(std::memory_order_relaxed);
    return continuation > 0 && continuation * kShare < work_.load(std::memory_order_relaxed);
  }

 private:
  static constexpr std::int64_t kShare = 16;
  // A moving average over about the last 8 durations.
  static void blend(std::atomic<std::int64_t>& average, std::chrono::nanoseconds took) {
    auto const old = average.load(std::memory_order_relaxed);
    average.store(old + (took.count() - old) / 8, std::memory_order_relaxed);
  }
  std::atomic<std::int64_t> work_{0};
  std::atomic<std::int64_t> continuation_{0};
};

// Thread-safe: push() may be called concurrently from any thread that runs in
// the task_group's arena. The queue must outlive the tasks it started (wait
// on the task_group before destroying it). A continuation that pushes to its
// own queue has its item started when it returns (on its thread), so it
// should return soon after: a lane pushes its next fetch as its last step.
class LimitedTaskQueue {
 public:
  using Task = std::function<void()>;

  LimitedTaskQueue(tbb::task_group& group, unsigned limit) : group_(group), limit_(limit ? limit : 1) {}

  // Runs `work` when a slot is free; `then` runs after it with the slot
  // already released (so a continuation does not extend the serialised
  // section): right after, in the same oneTBB task, unless other items wait.
  // Then the task keeps the slot and runs the next item's work itself, and
  // `then` becomes a task of its own (or, if it is short, runs first in
  // place: ContinuationPolicy): serialised work stays on one thread while
  // there is more of it. What a continuation run in the task pushes to this
  // queue runs in the task too, after the continuation returns.
  void push(Task work, Task then = {});

 private:
  struct Item {
    // Moved out of by the task that runs them (oneTBB calls a task as const).
    mutable Task work;
    mutable Task then;
  };
  void startWhileAllowed();
  // A free slot and the next waiting item, for the caller to run; false
  // (nothing taken) when no slot is free or nothing waits.
  bool takeSlot(Item& item);
  // Runs `item` and the items that wait after it, holding one slot.
  void runFrom(Item const& item);
  // Runs a continuation in this task, timed; what it pushes to this queue waits for it.
  void continueHere(Task const& then);

  using Clock = std::chrono::steady_clock;

  tbb::task_group& group_;
  unsigned const limit_;
  std::atomic<unsigned> running_{0};
  tbb::concurrent_queue<Item> queue_;
  ContinuationPolicy policy_;
};

}  // namespace lanes
