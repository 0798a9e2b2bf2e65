#pragma once
// Packs several jobs onto one node without overlap: each gets its own PUs,
// chosen by a pinning strategy among those no other job holds.

#include <vector>

#include "lanes/node/PinningStrategy.h"
#include "lanes/node/Topology.h"

namespace lanes::node {

// Externally synchronised: one thread at a time (the supervisor's loop, or
// the multi-process driver before it forks).
class NodeAllocator {
 public:
  explicit NodeAllocator(std::vector<ProcessingUnit> pus);

  // `count` PUs that no other allocation holds, by `strategy`. Throws
  // lanes::Exception (one line: what was asked for, what is free) when
  // there are not enough, and then holds nothing more than before.
  CpuSet allocate(PinStrategy const& strategy, unsigned count);

  // Gives back an allocation's PUs. Throws lanes::Exception for a PU that is
  // not allocated.
  void release(CpuSet const& pus);

  CpuSet const& taken() const { return taken_; }  // sorted
  std::size_t freeCount() const { return pus_.size() - taken_.size(); }

 private:
  std::vector<ProcessingUnit> pus_;
  CpuSet taken_;
};

// Multi-process jobs: worker r of `workers` gets element r, its own `perWorker`
// PUs, disjoint from every other worker's, by `strategy`. Throws
// lanes::Exception when the topology cannot hold them all.
std::vector<CpuSet> allocateWorkers(std::vector<ProcessingUnit> const& pus, PinStrategy const& strategy,
                                    unsigned workers, unsigned perWorker);

}  // namespace lanes::node
