#pragma once
// Objects of one type that a source reads into event after event: each is
// lent to an event's slot, and comes back, with its allocations (a vector's
// capacity) intact, in exchange for the next object lent to the same slot
// (ProductSlot::vacate keeps it there as the slot's spare) or, when its slot
// lets it go, from any thread. Reading a branch into pooled objects allocates
// nothing once every object in flight exists, and a lane that reads its event
// after event trades objects with its own slots, touching nothing shared.

#include <atomic>
#include <cstddef>
#include <memory>
#include <typeinfo>
#include <vector>

#include <oneapi/tbb/concurrent_queue.h>

#include "lanes/core/Product.h"

class TClass;

namespace lanes::rootio {

// Externally synchronised by its reader (take, putBack, discard, reclaim,
// lend: the serial source queue of a shared source, or the lane of a
// replica); objects come back from a slot that lets them go (giveBack) on
// any thread, concurrently with the reader. The pool lives while its owner
// or any object out of it does (taken, or lent to a slot): an object lent to
// a slot that outlives the source (a repeat cache) stays valid, and the last
// one back deletes the pool. The reader puts back what it took before it
// drops the owner.
class ObjectPool {
 public:
  using Make = void* (*)(void* context);
  using Destroy = void (*)(void* object, void* context);

  struct Close {
    void operator()(ObjectPool* pool) const { pool->unref(); }
  };
  // The owner's reference: dropping it leaves the pool to the objects still out.
  using Owner = std::unique_ptr<ObjectPool, Close>;
  // Objects of `cls` (New, Destructor).
  static Owner make(TClass* cls);
  // Objects of `type`, made by make(context) and destroyed by destroy(object, context).
  static Owner make(std::type_info const& type, Make make, Destroy destroy, void* context);

  // An object to read into: one that came back, else a new one.
  void* take();
  // Returns a taken object that no slot got.
  void putBack(void* object);
  // Gives up a taken object that may be half-built (ROOT failed while
  // filling it): it is neither reused nor destroyed.
  void discard(void* object);
  // The object this pool lent `slot` for its lane's last event, if the slot
  // kept it (ProductSlot::vacate): the reader's now, as if taken, to read the
  // slot's next product into. Else nullptr.
  void* reclaim(ProductSlot& slot) { return slot.reclaim(&giveBack, this); }
  // Hands a taken object, read into, to `slot` as a view that comes back here.
  void lend(void* object, std::size_t bytes, ProductSlot& slot) { slot.lend(object, type_, bytes, &giveBack, this); }
  // Lends `object` to `slot` as lend() does, and returns what reclaim()
  // would have (the reader's now), in one step (ProductSlot::trade).
  void* trade(void* object, std::size_t bytes, ProductSlot& slot) {
    if (auto* spare = slot.trade(object, bytes, &giveBack, this)) return spare;
    lend(object, bytes, slot);
    return nullptr;
  }

  // Objects made so far, for tests and figures.
  std::size_t made() const { return made_; }

 private:
  ObjectPool(std::type_info const& type, Make make, Destroy destroy, void* context)
      : type_(type), make_(make), destroy_(destroy), context_(context) {}
  ~ObjectPool();
  static void giveBack(void* object, void* pool);
  void unref();

  std::type_info const& type_;
  Make const make_;
  Destroy const destroy_;
  void* const context_;
  std::vector<void*> free_;                // the reader's own
  tbb::concurrent_queue<void*> returned_;  // given back by slots, on any thread
  // The owner and every object out: taken, or lent to a slot. An object that
  // a slot gives back for the next one (reclaim, lend) stays out: trading
  // objects with a lane's slots event after event counts nothing.
  std::atomic<std::size_t> refs_{1};
  std::size_t made_ = 0;
};

}  // namespace lanes::rootio
