#pragma once
// The event numbering the in-memory mimicry sources share: event ordinal k is
// event 1:1:(k+1), and an optional limit ends the source. The entry is the
// ordinal, or the ordinal modulo a cycle when the source replays a fixed
// number of per-event records (computed once per event, not per product).

#include <cstdint>

#include "lanes/core/Source.h"

namespace lanes::mimicry {

// Externally synchronised by the scheduler, as every Source. Shared use calls
// next(); each replica (a copy, lane-confined) is driven by at() instead.
class NumberedSource : public Source {
 public:
  bool next(SourceEvent& event) override;
  bool at(std::uint64_t ordinal, SourceEvent& event) override;
  std::optional<std::uint64_t> eventCount() const override {
    return events_ ? std::optional<std::uint64_t>(events_) : std::nullopt;
  }
  bool endless() const override { return events_ == 0; }
  bool numbersByOrdinal() const override { return true; }

 protected:
  // `events` = 0: unlimited (the job's event limit ends it); `cycle` = 0: no cycle.
  explicit NumberedSource(std::uint64_t events, std::uint64_t cycle = 0) : events_(events), cycle_(cycle) {}

 private:
  std::uint64_t events_;
  std::uint64_t cycle_;
  std::uint64_t next_ = 0;
};

}  // namespace lanes::mimicry
