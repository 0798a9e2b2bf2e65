#include "mimicry/NumberedSource.h"

namespace lanes::mimicry {

bool NumberedSource::next(SourceEvent& event) {
  if (!at(next_, event)) return false;
  ++next_;
  return true;
}

bool NumberedSource::at(std::uint64_t ordinal, SourceEvent& event) {
  if (events_ != 0 && ordinal >= events_) return false;
  event.id = EventId{1, 1, ordinal + 1};
  event.entry = cycle_ ? ordinal % cycle_ : ordinal;
  return true;
}

}  // namespace lanes::mimicry
