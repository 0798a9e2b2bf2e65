#pragma once
// The `dummy` output: writes nothing, only counts, so that a job measures
// everything but the cost of writing; or, given a time and a concurrency
// class, stands for an output's cost and its serialisation (a `one` output
// that sleeps 2 ms an event caps any job at 500 events/s).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "mimicry/WorkMode.h"

namespace lanes::mimicry {

// Thread-safe: written() and ready() run concurrently from every lane and
// only bump atomic counters, one pair per lane (on its own cache line) so
// that lanes do not contend; written() for one lane from one thread at a
// time, each call after the last (a lane writes its events one after the
// other); `lane` below the lanes given to resize(), which must not overlap
// with them.
class LaneCounters {
 public:
  void resize(unsigned lanes);
  // A lane writes its events one after the other, so its count has one writer
  // at a time, each after the last: no locked add (about 5 ns an event).
  void written(unsigned lane) {
    auto& written = counts_[lane].written;
    written.store(written.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // A lane's products may be ready on several threads at once.
  void ready(unsigned lane) { counts_[lane].ready.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t eventsWritten() const;
  std::uint64_t productsReady() const;

 private:
  struct alignas(128) LaneCounts {  // a line pair: a CPU may prefetch the line next to one it loads
    std::atomic<std::uint64_t> written{0};
    std::atomic<std::uint64_t> ready{0};
  };
  unsigned lanes_ = 1;
  std::unique_ptr<LaneCounts[]> counts_ = std::make_unique<LaneCounts[]>(1);
};

// Called as Base's concurrency class says (global, one or limited); the
// counters are thread-safe, the rest immutable after construction.
template <typename Base>
class DummyOutputOf final : public Base {
 public:
  // Options: ready=true|false (default false) asks for productReady() calls;
  // keep=PATTERN (repeatable glob over product labels; none: every product);
  // time=SECONDS per write (default 0), work=busy|sleep (default busy).
  template <typename... BaseArgs>
  explicit DummyOutputOf(PluginOptions const& options, BaseArgs&&... baseArgs)
      : Base(std::forward<BaseArgs>(baseArgs)...),
        wantsReady_(options.raw().getBool("ready", false)),
        time_(options.nonNegative("time", 0)),
        work_(readWorkMode(options, "work")) {
    this->keep(options.raw().getAll("keep"));
  }

  void beginJob(JobContext const& context) override { counters_.resize(context.lanes); }
  // Exactly one of the two overrides Base::write: the const one for the
  // shared classes (global, limited), the other for one.
  void write(Event const& event) const { run(event); }
  void write(Event const& event) { run(event); }
  bool wantsProductReady() const override { return wantsReady_; }
  void productReady(Event const& event, ProductIndex) const override { counters_.ready(event.lane()); }
  std::string details() const override { return workDetails(work_); }

  std::uint64_t eventsWritten() const { return counters_.eventsWritten(); }
  std::uint64_t productsReady() const { return counters_.productsReady(); }

 private:
  void run(Event const& event) const {
    spend(work_, time_);
    counters_.written(event.lane());
  }

  bool wantsReady_;
  double time_;
  WorkMode work_;
  mutable LaneCounters counters_;
};

// The default: every lane writes at once.
using DummyOutput = DummyOutputOf<global::Output>;

}  // namespace lanes::mimicry
