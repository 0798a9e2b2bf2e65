#pragma once
// The objects a chain of events reads its products into: a lane's events,
// one after another, each handed the objects of the one before. An event
// reads product p into the chain's object of p and lends it to its slot;
// the chain's next event reads into the same object once that slot has let
// it go, so that its allocations (a vector's capacity) serve event after
// event, as a TTree reads into the objects at its branches' addresses.
// A slot hands its object back with one plain store: no read-modify-write,
// no lock, no list per product and event.

#include <atomic>
#include <cstddef>
#include <typeinfo>
#include <vector>

#include "lanes/core/Product.h"

class TClass;

namespace lanes::rootio {

// Lane-confined per product: read() of product p runs once per event of the
// chain, one event after another; reads of different products run
// concurrently. Slots give objects back from any thread. An object that a
// slot still holds when the chain wants it again (a repeat cache keeps its
// slots) is left to that slot and the chain makes another; objects still
// lent when the chain is destroyed are freed once back (when another chain
// lets one go or ends).
class ReusedObjects {
 public:
  // One class per product: nullptr for a product read into no object (a scalar).
  explicit ReusedObjects(std::vector<TClass*> const& classes);
  ReusedObjects(ReusedObjects const&) = delete;
  ReusedObjects& operator=(ReusedObjects const&) = delete;
  ~ReusedObjects();

  // Reads product `product` into its object with `fill(object)` (the object
  // may hold an earlier event's product) and lends it to `slot`, a product
  // of `bytes` bytes. If fill throws, the object, maybe half-built, is given
  // up (neither reused nor destroyed) and the exception goes on.
  template <typename Fill>
  void read(std::size_t product, std::size_t bytes, ProductSlot& slot, Fill fill) {
    auto*& node = nodes_[product];
    if (!node || node->lent.load(std::memory_order_acquire)) renew(product);
    try {
      fill(node->object);
    } catch (...) {
      giveUp(product);
      throw;
    }
    node->lent.store(true, std::memory_order_relaxed);
    slot.lend(node->object, *node->type, bytes, &giveBack, node);
  }

 private:
  struct Node {
    void* object;
    TClass* cls;
    std::type_info const* type;
    // Set by read() (while the chain owns the node), cleared by the slot's
    // reset (a release: whatever the holder did with the object comes first).
    std::atomic<bool> lent{false};
  };
  // What a slot's reset() calls. The store is its last touch of the node:
  // whoever sees the node back may free it at once.
  static void giveBack(void*, void* node) { static_cast<Node*>(node)->lent.store(false, std::memory_order_release); }
  // A new object for `product`; the old one, if a slot holds it, is left to the slot.
  void renew(std::size_t product);
  void giveUp(std::size_t product);
  static void destroy(Node* node);
  friend class Strays;

  std::vector<TClass*> classes_;
  std::vector<Node*> nodes_;  // product p's object, once read
};

}  // namespace lanes::rootio
