#include "lanes/core/LimitedTaskQueue.h"

namespace lanes {

void LimitedTaskQueue::push(Task work, Task then) {
  queue_.push({std::move(work), std::move(then)});
  startWhileAllowed();
}

void LimitedTaskQueue::startWhileAllowed() {
  while (true) {
    unsigned running = running_.load(std::memory_order_acquire);
    if (running >= limit_) return;  // a finishing task will come back here
    if (!running_.compare_exchange_weak(running, running + 1, std::memory_order_acq_rel)) continue;
    Item item;
    if (queue_.try_pop(item)) {
      group_.run([this, item = std::move(item)] { runFrom(item); });
      continue;  // maybe more slots are free
    }
    running_.fetch_sub(1, std::memory_order_acq_rel);
    // A push that raced with the failed pop saw our slot taken and returned;
    // look again so its task is not stranded.
    if (queue_.empty()) return;
  }
}

void LimitedTaskQueue::runFrom(Item const& first) {
  // While items wait, the slot stays with this task and its thread: what the
  // serialised work touches (a shared source's file, a `one` module's state)
  // stays in that core's cache, and each continuation goes to a thread of
  // its own instead.
  Item item{std::move(first.work), std::move(first.then)};
  while (true) {
    item.work();
    Item next;
    if (!queue_.try_pop(next)) break;
    if (item.then) group_.run(std::move(item.then));
    item = std::move(next);
  }
  running_.fetch_sub(1, std::memory_order_acq_rel);
  startWhileAllowed();
  if (item.then) item.then();
}

}  // namespace lanes
