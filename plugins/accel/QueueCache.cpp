#include "accel/QueueCache.h"

#include <algorithm>

namespace lanes::accel {

QueueCache::QueueCache(std::shared_ptr<Device> device, unsigned maxQueues)
    : state_(std::make_shared<State>(std::move(device), maxQueues)) {}

Placement QueueCache::place(std::vector<DeviceProduct const*> const& inputs) {
  Placement placement;
  for (auto const* input : inputs) {
    if (input->claimQueue()) {
      placement.queue = input->queue();
      break;
    }
  }
  if (!placement.queue) placement.queue = take();
  for (auto const* input : inputs) {
    if (input->queue() != placement.queue) placement.waits.push_back(input->marker());
  }
  return placement;
}

std::size_t QueueCache::size() const {
  std::lock_guard lock(state_->mutex);
  return state_->entries.size();
}

// A free queue, else a new one, else (at the limit) the least-leased one.
std::size_t QueueCache::chooseEntry(State& state) {
  auto& entries = state.entries;
  auto const least = std::min_element(entries.begin(), entries.end(),
                                      [](Entry const& a, Entry const& b) { return a.leases < b.leases; });
  if (least != entries.end() && least->leases == 0) return static_cast<std::size_t>(least - entries.begin());
  if (state.maxQueues == 0 || entries.size() < state.maxQueues) {
    entries.push_back({state.device->makeQueue()});
    return entries.size() - 1;
  }
  return static_cast<std::size_t>(least - entries.begin());
}

std::shared_ptr<Queue> QueueCache::take() {
  std::lock_guard lock(state_->mutex);
  auto const index = chooseEntry(*state_);
  auto& entry = state_->entries[index];
  ++entry.leases;
  return std::shared_ptr<Queue>(entry.queue.get(), [state = state_, index](Queue*) {
    std::lock_guard lock(state->mutex);
    --state->entries[index].leases;
  });
}

}  // namespace lanes::accel
