#pragma once
// Serialisation without parking threads: tasks pushed to the queue run as
// oneTBB tasks, at most `limit` at a time, in push order. A limit of 1 is a
// serial queue (a `one` module, a shared source).

#include <atomic>
#include <functional>

#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/task_group.h>

namespace lanes {

// Thread-safe: push() may be called concurrently from any thread that runs in
// the task_group's arena. The queue must outlive the tasks it started (wait
// on the task_group before destroying it).
class LimitedTaskQueue {
 public:
  using Task = std::function<void()>;

  LimitedTaskQueue(tbb::task_group& group, unsigned limit) : group_(group), limit_(limit ? limit : 1) {}

  // Runs `work` when a slot is free; `then` runs after it with the slot
  // already released (so a continuation does not extend the serialised
  // section): right after, in the same oneTBB task, unless other items wait.
  // Then the task keeps the slot and runs the next item's work itself, and
  // `then` becomes a task of its own: serialised work stays on one thread
  // while there is more of it.
  void push(Task work, Task then = {});

 private:
  struct Item {
    // Moved out of by the task that runs them (oneTBB calls a task as const).
    mutable Task work;
    mutable Task then;
  };
  void startWhileAllowed();
  // Runs `item` and the items that wait after it, holding one slot.
  void runFrom(Item const& item);

  tbb::task_group& group_;
  unsigned const limit_;
  std::atomic<unsigned> running_{0};
  tbb::concurrent_queue<Item> queue_;
};

}  // namespace lanes
