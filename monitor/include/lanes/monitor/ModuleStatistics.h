#pragma once
// Per-module call counts and times, gathered from the
// observer hooks. Each calling thread adds into its own accumulator, so
// concurrent calls never contend; the accumulators are merged when read.
//
// What counts where:
//   - a module's calls and time: its Acquire and Event calls;
//   - time in source: every call whose module is kSourceProducer;
//   - time in outputs: every Acquire, Event and ProductReady call of a module
//     whose kind is Output.
// Other transitions (beginJob, endJob, ...) are not counted.

#include <cstdint>
#include <vector>

#include <tbb/enumerable_thread_specific.h>

#include "lanes/core/ProcessingObserver.h"

namespace lanes {

// Externally synchronised by its owner (a plain value): a number of calls and
// their summed duration.
struct CallTotals {
  std::uint64_t calls = 0;
  Clock::duration time{};

  double seconds() const { return std::chrono::duration<double>(time).count(); }
  CallTotals& operator+=(CallTotals const& other);
};

// Thread-safe: callFinished() may be called concurrently
// from any thread, once jobStarted() has returned. totals() merges the
// per-thread accumulators and must not overlap with those calls: call it
// after jobFinished().
class ModuleStatistics : public ProcessingObserver {
 public:
  struct Totals {
    std::vector<CallTotals> modules;  // indexed like JobInfo::modules
    CallTotals source;
    CallTotals outputs;
  };

  void jobStarted(JobInfo const& info) override;
  void callFinished(CallRecord const& record) override;

  Totals totals() const;

 private:
  Totals& local();

  std::vector<bool> isOutput_;  // by module index
  tbb::enumerable_thread_specific<Totals> perThread_;
};

}  // namespace lanes
