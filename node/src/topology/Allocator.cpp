#include "lanes/node/Allocator.h"

#include <algorithm>

#include "lanes/core/Exception.h"

namespace lanes::node {

NodeAllocator::NodeAllocator(std::vector<ProcessingUnit> pus) : pus_(std::move(pus)) {}

CpuSet NodeAllocator::allocate(PinStrategy const& strategy, unsigned count) {
  auto chosen = choosePus(pus_, strategy, count, taken_);
  CpuSet merged;
  std::set_union(taken_.begin(), taken_.end(), chosen.begin(), chosen.end(), std::back_inserter(merged));
  taken_ = std::move(merged);
  return chosen;
}

void NodeAllocator::release(CpuSet const& pus) {
  for (auto pu : pus) {
    auto it = std::lower_bound(taken_.begin(), taken_.end(), pu);
    if (it == taken_.end() || *it != pu) throw Exception("cannot release PU " + std::to_string(pu) + ": it is not allocated");
    taken_.erase(it);
  }
}

std::vector<CpuSet> allocateWorkers(std::vector<ProcessingUnit> const& pus, PinStrategy const& strategy,
                                    unsigned workers, unsigned perWorker) {
  NodeAllocator allocator(pus);
  std::vector<CpuSet> sets;
  for (unsigned worker = 0; worker < workers; ++worker) {
    try {
      sets.push_back(allocator.allocate(strategy, perWorker));
    } catch (Exception const& error) {
      throw Exception(std::to_string(workers) + " workers of " + std::to_string(perWorker) +
                      " PUs do not fit: worker " + std::to_string(worker) + ": " + error.message());
    }
  }
  return sets;
}

}  // namespace lanes::node
