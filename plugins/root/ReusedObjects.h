#pragma once
// The objects a chain of events reads its products into: a lane's events,
// one after another, each handed the objects of the one before. An event
// reads product p into the chain's object of p and lends it to its slot;
// the chain's next event reads into the same object once that slot has let
// it go, so that its allocations (a vector's capacity) serve event after
// event, as a TTree reads into the objects at its branches' addresses.
// A slot hands its object back with one plain store, or keeps it as its
// spare until the chain's next event takes it back from the same slot: no
// read-modify-write, no lock, no list per product and event.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lanes/core/Product.h"
#include "lanes/core/Source.h"

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
    // The lane's slot keeps the object of its last event as its spare
    // (ProductSlot::vacate()): taken back, it is ours again.
    if (node && slot.reclaim(&giveBack, node)) node->lent.store(false, std::memory_order_relaxed);
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

// The events a source's lanes hold, each the latest of its lane's chain, and
// the entry (SourceEvent::entry) of each: an Event has the chain's `objects`
// (a std::unique_ptr<ReusedObjects>). Externally synchronised by the
// source's next() (or a replica's at()).
template <typename Event>
class HeldEvents {
 public:
  // The lane that held the event of `entry` asks for its next one: the event
  // is dropped, and its objects go on to the next (new ones, for products of
  // `classes`, for a lane's first event).
  std::unique_ptr<ReusedObjects> next(std::uint64_t entry, std::vector<TClass*> const& classes) {
    auto found = held_.find(reinterpret_cast<Event const*>(entry));
    if (found == held_.end()) return std::make_unique<ReusedObjects>(classes);
    auto objects = std::move(found->second->objects);
    held_.erase(found);
    return objects;
  }
  // Holds `event` until its lane's next; returns its entry.
  std::uint64_t hold(std::unique_ptr<Event> event) {
    auto const entry = reinterpret_cast<std::uint64_t>(event.get());
    held_.emplace(event.get(), std::move(event));
    return entry;
  }
  static Event& of(SourceEvent const& event) { return *reinterpret_cast<Event*>(event.entry); }

 private:
  std::unordered_map<Event const*, std::unique_ptr<Event>> held_;
};

}  // namespace lanes::rootio
