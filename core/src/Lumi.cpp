#include "lanes/core/Lumi.h"

#include "Boundaries.h"
#include "lanes/core/Event.h"
#include "lanes/core/Exception.h"
#include "lanes/core/Module.h"

namespace lanes {

void throwMergeSizes(std::size_t into, std::size_t from) {
  throw Exception("cannot merge vectors of " + std::to_string(into) + " and " + std::to_string(from) +
                  " elements (a product merged element by element must keep its size)");
}

std::uint64_t Block::events() const { return state_.events.load(std::memory_order_relaxed); }

ProductSlot const* Block::slot(ProductIndex index) const {
  ProductSlot const* slot = index < state_.fromSourceCount ? &state_.fromSource[index] : state_.put[index - state_.fromSourceCount].get();
  return slot && slot->filled() ? slot : nullptr;
}

ProductSlot const& Block::checked(ProductIndex index, std::type_info const& wanted) const {
  auto const& description = state_.registry[index].description;
  char const* const level = level_ == Level::Run ? "run" : "lumi";
  auto const* slot = this->slot(index);
  if (!slot) {
    throw Exception(std::string(level) + " product '" + description.label + "' is missing from " + level + " " +
                    std::to_string(run_) + (level_ == Level::Lumi ? ":" + std::to_string(static_cast<Lumi const*>(this)->luminosityBlock()) : ""));
  }
  if (slot->type() != wanted) {
    throw Exception(std::string(level) + " product '" + description.label + "' is a " + demangle(slot->type()) +
                    ", not a " + demangle(wanted));
  }
  return *slot;
}

void Block::putSlot(ProductIndex index, std::unique_ptr<ProductSlot> value) {
  auto const& description = state_.registry[index].description;
  if (index < state_.fromSourceCount) {
    throw Exception("product '" + description.label + "' comes from the source: a module cannot put it");
  }
  tbb::spin_mutex::scoped_lock const hold(state_.putLock);
  auto& slot = state_.put[index - state_.fromSourceCount];
  if (!slot) {
    slot = std::move(value);
    return;
  }
  if (!description.merge) {
    throw Exception((level_ == Level::Run ? "run" : "lumi") + std::string(" product '") + description.label +
                    "' was put twice and cannot be merged (" + description.typeName +
                    ": numbers and vectors of numbers merge, or a type with mergeInto(T&, T const&))");
  }
  description.merge(*slot, *value);
}

ConditionsPayload const& Lumi::conditions(ConditionsToken token) const { return state().iovs.at(token.record())->payload; }

namespace detail {

BlockCacheBase::BlockCacheBase(Module& module) { module.caches_.push_back(this); }

unsigned slotOf(Event const& event, Level level) {
  return level == Level::Run ? event.run().slot() : event.lumi().slot();
}

unsigned laneOf(Event const& event) { return event.lane(); }

}  // namespace detail

}  // namespace lanes
