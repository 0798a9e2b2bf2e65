#include "lanes/core/LimitedTaskQueue.h"

#include <utility>

#include "lanes/core/detail/TbbHandOff.h"

namespace lanes {

namespace {
// The queue whose item's continuation this thread is running (runFrom), if
// any: what that continuation pushes to the same queue is started by
// runFrom once the continuation returns, on this thread.
thread_local LimitedTaskQueue const* continuing = nullptr;

void runTimed(LimitedTaskQueue::Task const& then, ContinuationPolicy& policy) {
  auto const began = std::chrono::steady_clock::now();
  then();
  policy.continuationTook(std::chrono::steady_clock::now() - began);
}
}  // namespace

void LimitedTaskQueue::push(Task work, Task then) {
  queue_.push({std::move(work), std::move(then)});
  if (continuing != this) startWhileAllowed();
}

void LimitedTaskQueue::startWhileAllowed() {
  Item item;
  while (takeSlot(item)) group_.run(detail::handedOver([this, item = std::move(item)] { runFrom(item); }, &group_));
}

bool LimitedTaskQueue::takeSlot(Item& item) {
  while (true) {
    unsigned running = running_.load(std::memory_order_acquire);
    if (running >= limit_) return false;  // a finishing task will come back here
    if (!running_.compare_exchange_weak(running, running + 1, std::memory_order_acq_rel)) continue;
    if (queue_.try_pop(item)) return true;
    running_.fetch_sub(1, std::memory_order_acq_rel);
    // A push that raced with the failed pop saw our slot taken and returned;
    // look again so its item is not stranded.
    if (queue_.empty()) return false;
  }
}

void LimitedTaskQueue::runFrom(Item const& first) {
  // While items wait, the slot stays with this task and its thread: what the
  // serialised work touches (a shared source's file, a `one` module's state)
  // stays in that core's cache, and each continuation goes to a thread of
  // its own instead.
  Item item{std::move(first.work), std::move(first.then)};
  while (true) {
    // Timed only where a continuation's place is to be decided: an item
    // without one pays no clock reads.
    auto const began = item.then ? Clock::now() : Clock::time_point{};
    item.work();
    if (item.then) policy_.workTook(Clock::now() - began);
    Item next;
    if (queue_.try_pop(next)) {
      if (item.then && policy_.inPlace()) {
        continueHere(item.then);
      } else if (item.then) {
        group_.run(detail::handedOver([this, then = std::move(item.then)] { runTimed(then, policy_); }, &group_));
      }
      item = std::move(next);
      continue;
    }
    running_.fetch_sub(1, std::memory_order_acq_rel);
    startWhileAllowed();
    if (!item.then) return;
    continueHere(item.then);
    if (!takeSlot(item)) return;
    startWhileAllowed();  // where the limit allows more than one
  }
}

// What the continuation pushes to this queue (a lane that finished its
// event fetches the next) waits until it returns, and then runs on this
// thread too, instead of as a task that an idle thread would steal, taking
// the queue's work to another core.
void LimitedTaskQueue::continueHere(Task const& then) {
  auto const outer = std::exchange(continuing, this);
  runTimed(then, policy_);
  continuing = outer;
}

}  // namespace lanes
