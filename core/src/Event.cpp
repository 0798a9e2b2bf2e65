#include "lanes/core/Event.h"

namespace lanes {

ProductSlot const& Event::checked(ProductIndex index, std::type_info const& wanted) const {
  auto const& slot = slots_[index];
  if (!slot.filled()) {
    throw Exception("product '" + (*registry_)[index].description.label + "' is missing from event " + id_.str());
  }
  if (wanted != typeid(AnyProduct) && slot.type() != wanted) {
    throw Exception("product '" + (*registry_)[index].description.label + "' is a " + demangle(slot.type()) +
                    ", not a " + demangle(wanted));
  }
  return slot;
}

Lumi const& Event::untracked() {
  throw Exception(
      "the job tracks no lumis: a module that reads an event's lumi or run needs a lumi or run callback, product or "
      "cache, or a source numbered into lumis (events-per-lumi=)");
}

ProductIndex Event::indexOf(std::string const& label) const {
  auto const* index = registry_->find(label);
  if (!index) throw Exception("no product is labelled '" + label + "'");
  return *index;
}

}  // namespace lanes
