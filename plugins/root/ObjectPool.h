#pragma once
// Objects of one ROOT class that a source reads into event after event: each
// is lent to an event's slot and comes back when the slot lets it go, with
// its allocations (a vector's capacity) intact, so that reading an object
// branch allocates nothing once every object in flight exists.

#include <atomic>
#include <cstddef>
#include <memory>

#include "lanes/core/Product.h"

class TClass;

namespace lanes::rootio {

// Externally synchronised by its reader (take, lend, putBack, discard: the
// serial source queue of a shared source, or the lane of a replica); objects
// come back (the slot's reset()) from any thread, concurrently with the
// reader. The pool lives while its owner or any object out of it does: an
// object lent to a slot that outlives the source (a repeat cache) stays
// valid, and the last one back deletes the pool.
class ObjectPool {
 public:
  // One object, in the pool or out of it.
  struct Item {
    void* object;
    Item* next = nullptr;
    ObjectPool* pool;
  };

  struct Close {
    void operator()(ObjectPool* pool) const { pool->unref(); }
  };
  // The owner's reference: dropping it leaves the pool to the objects still out.
  using Owner = std::unique_ptr<ObjectPool, Close>;
  static Owner make(TClass* cls);

  // An object to read into: one that came back, else a new one.
  Item* take();
  // Hands a taken object, read into, to `slot` as a view that comes back here.
  void lend(Item* item, std::size_t bytes, ProductSlot& slot);
  // Returns a taken object that no slot got (a read ahead that no event took).
  void putBack(Item* item);
  // Gives up a taken object that may be half-built (ROOT failed while filling
  // it): it is neither reused nor destroyed.
  void discard(Item* item);

  // Objects made so far, for tests and figures.
  std::size_t made() const { return made_; }

 private:
  explicit ObjectPool(TClass* cls) : cls_(cls) {}
  ~ObjectPool();
  static void giveBack(void* object, void* item);
  void push(Item* item);
  void unref();

  TClass* cls_;
  Item* free_ = nullptr;  // the reader's own list
  std::atomic<Item*> returned_{nullptr};  // pushed by any thread, taken whole by the reader
  std::atomic<std::size_t> refs_{1};      // the owner and every object out of the pool
  std::size_t made_ = 0;
};

}  // namespace lanes::rootio
