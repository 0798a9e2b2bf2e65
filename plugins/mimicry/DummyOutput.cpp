#include "mimicry/DummyOutput.h"

#include <algorithm>

#include "mimicry/ConcurrencyChoice.h"

namespace lanes::mimicry {

void LaneCounters::resize(unsigned lanes) {
  lanes_ = std::max(1u, lanes);
  counts_ = std::make_unique<LaneCounts[]>(lanes_);
}

std::uint64_t LaneCounters::eventsWritten() const {
  std::uint64_t total = 0;
  for (unsigned lane = 0; lane < lanes_; ++lane) total += counts_[lane].written.load();
  return total;
}

std::uint64_t LaneCounters::productsReady() const {
  std::uint64_t total = 0;
  for (unsigned lane = 0; lane < lanes_; ++lane) total += counts_[lane].ready.load();
  return total;
}

namespace {
RegisterConcurrentOutput<DummyOutputOf> const registration(
    "dummy",
    "writes nothing, counts events: ready=true asks for per-product ready calls, keep=PATTERN (glob), time=SECONDS "
    "per write, work=busy|sleep, concurrency=global|one|limited, limit=N");
}

}  // namespace lanes::mimicry
