#include "root/SharedBaskets.h"

#include <thread>

namespace lanes::rootio {

std::size_t SharedBaskets::KeyHash::hash(Key const& key) {
  auto mix = [](std::size_t seed, std::size_t value) { return seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2)); };
  return mix(mix(std::hash<std::size_t>{}(key.file), key.product), static_cast<std::size_t>(key.basket));
}

SharedBaskets::Held SharedBaskets::find(Key const& key, long long runs, std::function<Held()> const& make) {
  for (bool waited = false;; waited = true) {
    {
      decltype(baskets_)::accessor entry;
      baskets_.insert(entry, key);
      if (auto held = entry->second.held.lock()) {
        reused_.fetch_add(1, std::memory_order_relaxed);
        if (waited) waitedFor_.fetch_add(1, std::memory_order_relaxed);
        if (entry->second.kept && --entry->second.awaited <= 0) entry->second.kept.reset();
        return held;
      }
      if (!entry->second.making) {
        entry->second.making = true;
        break;
      }
    }
    std::this_thread::yield();  // for the rest of another lane's decompression: tens of microseconds
  }
  Held made;
  try {
    made = make();
  } catch (...) {
    madeBy(key, nullptr, runs);
    throw;
  }
  madeBy(key, made, runs);
  if (made && runs > 1) keep(key, made);
  return made;
}

void SharedBaskets::madeBy(Key const& key, Held const& made, long long runs) {
  decltype(baskets_)::accessor entry;
  baskets_.find(entry, key);  // there: an entry marked as making is never erased
  entry->second.making = false;
  if (!made) {
    if (entry->second.forgettable()) baskets_.erase(entry);
    return;
  }
  made_.fetch_add(1, std::memory_order_relaxed);
  entry->second.held = made;
  if (runs > 1) {
    entry->second.kept = made;
    entry->second.awaited = runs - 1;
  }
}

void SharedBaskets::keep(Key const& key, Held const& basket) {
  std::vector<Kept> evicted;
  {
    std::lock_guard lock(keptMutex_);
    kept_.push_back({key, basket, basket->size()});
    keptBytes_ += basket->size();
    // The bytes of the oldest that no lane holds and none is kept for are free.
    while (!kept_.empty() && kept_.front().basket.expired()) {
      keptBytes_ -= kept_.front().bytes;
      kept_.pop_front();
    }
    while (keptBytes_ > keptLimit_) {
      keptBytes_ -= kept_.front().bytes;
      evicted.push_back(std::move(kept_.front()));
      kept_.pop_front();
    }
  }
  for (auto const& old : evicted) {
    decltype(baskets_)::accessor entry;
    if (!baskets_.find(entry, old.key)) continue;
    if (entry->second.kept && entry->second.kept == old.basket.lock()) entry->second.kept.reset();  // not one made since
    if (entry->second.forgettable()) baskets_.erase(entry);
  }
}

void SharedBaskets::release(Key const& key, Held& held) {
  if (!held) return;
  // Another lane may find it meanwhile and keep it: it stays then. Two lanes
  // that let go at once may each leave it to the other: the key stays, expired,
  // until a lane makes the basket again.
  bool const last = held.use_count() == 1;
  held.reset();
  if (!last) return;
  decltype(baskets_)::accessor entry;
  if (baskets_.find(entry, key) && entry->second.forgettable()) baskets_.erase(entry);
}

}  // namespace lanes::rootio
