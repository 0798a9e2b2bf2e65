#pragma once
// The `repeat=N` option of every source: the first N events are read once
// into memory and then cycled, so that a job measures the framework and its
// modules rather than the input. Cycled events get fresh consecutive event
// numbers so that every event stays distinguishable.

#include <memory>
#include <vector>

#include "lanes/core/Source.h"

namespace lanes {

// Immutable after construction (the cache is read-only and shared by the
// per-lane replicas), so reads are concurrent and every copy is lane-confined
// only in its own position.
class RepeatingSource : public Source {
 public:
  // Reads every product of the first `events` events of `input`; throws
  // lanes::Exception if `input` has none. `input` is released afterwards.
  RepeatingSource(std::unique_ptr<Source> input, std::size_t events);

  bool next(SourceEvent& event) override;
  bool at(std::uint64_t ordinal, SourceEvent& event) override;
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  bool concurrentReads() const override { return true; }
  bool endless() const override { return true; }
  std::unique_ptr<Source> replicate() const override;
  std::string origin() const override;
  std::string details() const override;  // the input's

 private:
  struct Cache;
  explicit RepeatingSource(std::shared_ptr<Cache const> cache);

  std::shared_ptr<Cache const> cache_;
  std::uint64_t nextOrdinal_ = 0;
};

}  // namespace lanes
