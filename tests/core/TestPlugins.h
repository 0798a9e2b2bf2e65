#pragma once
// Small modules and sources for the core's tests, registered in a private
// PluginRegistry so that tests do not depend on the mimicry plugins.

#include <array>
#include <atomic>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lanes/core/EventProcessor.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::test {

// Counts how many calls are inside a region at once; thread-safe.
class OverlapProbe {
 public:
  void enter() {
    auto inside = inside_.fetch_add(1) + 1;
    auto seen = maxInside_.load();
    while (inside > seen && !maxInside_.compare_exchange_weak(seen, inside)) {
    }
    calls_.fetch_add(1);
  }
  void leave() { inside_.fetch_sub(1); }
  int maxInside() const { return maxInside_.load(); }
  int calls() const { return calls_.load(); }

 private:
  std::atomic<int> inside_{0};
  std::atomic<int> maxInside_{0};
  std::atomic<int> calls_{0};
};

// Burns a little CPU so that concurrent calls really overlap in time.
void spin(int iterations = 20000);

// Everything a test observes, shared by the test plugins of one registry.
struct Observations {
  std::atomic<int> producerCalls{0};
  std::atomic<int> outputWrites{0};
  std::atomic<int> productReadyCalls{0};
  std::atomic<int> streamInstances{0};
  std::atomic<int> abandoned{0};
  std::atomic<long> checksum{0};
  std::atomic<int> endJobConcurrency{0};  // of the arena an output's endJob ran in
  OverlapProbe probe;
  std::atomic<int> overlappingReads{0};  // read() entered on a source copy that was already in one
  std::atomic<int> readsOffTheFetchingThread{0};  // a shared source's read() on another thread than its last next()
  std::atomic<std::uint64_t> replicaChunk{0};  // the run the scheduler gave a replicated source
  std::vector<std::string> order;  // guarded by orderMutex
  std::mutex orderMutex;
  void log(std::string entry) {
    std::lock_guard lock(orderMutex);
    order.push_back(std::move(entry));
  }
  // Which replica of the source positioned on which ordinal, in call order.
  std::vector<std::pair<void const*, std::uint64_t>> positions;  // guarded by orderMutex
  void positioned(void const* replica, std::uint64_t ordinal) {
    std::lock_guard lock(orderMutex);
    positions.emplace_back(replica, ordinal);
  }
};

// A registry with test plugins that report into `observations`:
//   source  "count"      products "n" (int = event number) and "blob" (SyntheticBytes);
//                        options events=N, shared=true (no replication),
//                        chunk=N (a lane claims N ordinals at a time; replicas
//                        record their positions in `positions`, and the run
//                        the scheduler settled on in `replicaChunk`),
//                        fail-next-at=K / fail-read-at=K (throw at event K);
//                        counts reads that overlap on one copy in `overlappingReads`,
//                        and a shared one's reads away from its last next()'s
//                        thread in `readsOffTheFetchingThread`
//   module  "add"        global producer: out = sum of `in` (repeatable) ints + 1; logs its label
//   module  "stream-add" stream producer doing the same; counts instances
//   module  "one-probe", "limited-probe" (limit=N), "global-probe": analyzers measuring overlap
//   module  "even"       global filter: accepts even values of `in`
//   module  "throw"      analyzer: throws at event number `at`
//   module  "external"   global ExternalProducer: completes from a std::thread
//                        (fail-at=K fails, drop-at=K drops the completion)
//   output  "collect"    global output summing `in` into the checksum; ready=true counts productReady;
//                        endJob records the concurrency of its arena
PluginRegistry testRegistry(Observations& observations);

JobConfig job(std::string const& source = "count:events=20");

// Runs `config`, asking for a stop once `events` events have finished (from
// an observer: no timing involved).
RunSummary runStoppingAfter(JobConfig const& config, PluginRegistry const& registry, int events);

}  // namespace lanes::test
