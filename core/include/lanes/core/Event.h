#pragma once
// One event in flight: its id and the slots of its products.

#include <string>
#include <vector>

#include "lanes/core/EventId.h"
#include "lanes/core/Exception.h"
#include "lanes/core/Lumi.h"
#include "lanes/core/Product.h"
#include "lanes/core/ProductRegistry.h"

namespace lanes {

// Lane-confined. Within an event, several module calls run concurrently; each
// slot is written by its one producer before the scheduler lets any consumer
// of it run, so reads need no locking.
class Event {
 public:
  Event(ProductRegistry const& registry, unsigned lane) : registry_(&registry), lane_(lane), slots_(registry.size()) {}

  EventId const& id() const { return id_; }
  unsigned lane() const { return lane_; }
  // The lumi (and run) in flight that the event belongs to, in a job that
  // tracks lumis: one where a module or output has lumi or run callbacks,
  // products or caches, or reads conditions (EventProcessor's info() says);
  // else throws lanes::Exception.
  Lumi const& lumi() const { return lumi_ ? *lumi_ : untracked(); }
  Run const& run() const { return lumi().runBlock(); }
  // The payload of a conditions record (Module::consumesConditions) for the
  // event's interval of validity.
  ConditionsPayload const& conditions(ConditionsToken token) const { return lumi_->conditions(token); }

  template <typename T>
  T const& get(ProductToken<T> token) const {
    return *static_cast<T const*>(checked(token.index(), typeid(T)).object());
  }
  // Bytes of a product of any type.
  std::size_t size(ProductToken<AnyProduct> token) const { return checked(token.index(), typeid(AnyProduct)).bytes(); }
  std::size_t size(ProductIndex index) const { return checked(index, typeid(AnyProduct)).bytes(); }

  // Lookup by label, for code that did not keep a token (slower).
  template <typename T>
  T const& getByLabel(std::string const& label) const {
    return *static_cast<T const*>(checked(indexOf(label), typeid(T)).object());
  }

  // `bytes` is what the product weighs for mimicry and reports; it defaults to
  // the object's own size.
  template <typename T>
  void put(ProductToken<T> token, T value, std::size_t bytes = sizeof(T)) {
    slots_[token.index()].emplace(std::move(value), bytes);
  }

  bool has(ProductIndex index) const { return slots_[index].filled(); }
  ProductSlot const& slot(ProductIndex index) const { return slots_[index]; }
  ProductRegistry const& registry() const { return *registry_; }

  // Framework use: the scheduler starts each event and sources fill slots.
  // The slots keep the objects sources lent them, for the sources to reuse
  // (ProductSlot::vacate).
  void start(EventId const& id, Lumi const* lumi = nullptr) {
    id_ = id;
    lumi_ = lumi;
    for (auto& slot : slots_) slot.vacate();
  }
  ProductSlot& slotForWriting(ProductIndex index) { return slots_[index]; }
  // Every slot, indexed by product: the source's products come first.
  ProductSlot* slotsForWriting() { return slots_.data(); }

 private:
  // Throws lanes::Exception if the product is missing or of another type
  // (AnyProduct matches every type).
  ProductSlot const& checked(ProductIndex index, std::type_info const& wanted) const;
  ProductIndex indexOf(std::string const& label) const;
  [[noreturn]] static Lumi const& untracked();

  ProductRegistry const* registry_;
  unsigned lane_;
  EventId id_;
  Lumi const* lumi_ = nullptr;
  std::vector<ProductSlot> slots_;
};

}  // namespace lanes
