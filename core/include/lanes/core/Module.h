#pragma once
// The module interface. A module's kind (producer, filter, analyzer, output)
// and concurrency class (global, stream, one, limited) are part of its type:
// derive from e.g. lanes::global::Producer or lanes::one::Output (see
// ModuleTypes.h). Consumed and produced products are declared in the
// constructor, so the dependency graph is known before the first event.

#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <type_traits>
#include <string>
#include <typeindex>
#include <vector>

#include "lanes/core/Completion.h"
#include "lanes/core/Conditions.h"
#include "lanes/core/Lumi.h"
#include "lanes/core/Product.h"

namespace lanes {

class Event;
class ProductRegistry;

enum class ModuleKind { Producer, Filter, Analyzer, Output };
enum class Concurrency {
  Global,   // one instance shared by all lanes, called concurrently
  Stream,   // one instance per lane
  One,      // one instance, never entered concurrently
  Limited,  // one instance, at most N concurrent calls
};

char const* toString(ModuleKind kind);
char const* toString(Concurrency concurrency);

// What the job looks like, handed to beginJob().
struct JobContext {
  ProductRegistry const& registry;
  unsigned lanes;
  unsigned threads;
  // The part of a multi-process job this process writes ("worker-2"), or
  // empty in a single process. Outputs write their file at partPath().
  std::string part = {};
  // Set for the outputs of a shared-writer multi-process job (empty
  // otherwise): instead of writing a file, an output ships its events in
  // serialised batches of at most maxBatchBytes to the one writer process,
  // which merges them into the output (OutputModule::mergeBatch()). Thread-
  // safe; blocks while the writer is behind (I/O back-pressure, the only
  // wait of a worker thread it allows); throws lanes::Exception.
  std::function<void(void const* bytes, std::size_t size)> shipBatch = {};
  std::size_t maxBatchBytes = 0;
  // The largest event number the job can reach, when it is known before
  // the job (a source that numbers events by ordinal, with a count or an
  // event limit); 0 when it is not. A module can refuse a setting that
  // could never take effect (throw lanes::ConfigurationError).
  std::uint64_t lastEventNumber = 0;
  // Whether an event of the job is numbered `number`, where the source can
  // tell before the job: it numbers events by ordinal, or a copy of it reads
  // the events' ids ahead (a pass over the ids: ask only for a setting that
  // must hit an event, as fault's at=); nullopt where it cannot.
  std::function<std::optional<bool>(std::uint64_t number)> hasEventNumber = {};
  // The run and lumi products of the job (the source's, then the modules'),
  // for an output that writes them; never null in a job's beginJob().
  ProductRegistry const* runRegistry = nullptr;
  ProductRegistry const* lumiRegistry = nullptr;
  // For endJob(): whether this process processed every event of the job,
  // neither failing nor stopped by a signal (false in a part of a
  // multi-process or MPI job, which sees only some of the events).
  std::function<bool()> ranWholeJob = {};
};

// Where the `part` of a multi-process job writes the output that a single
// process would write at `path`: "out.root" -> "out.worker-2.root". Returns
// `path` unchanged for the empty part.
std::string partPath(std::string const& path, std::string const& part);

// One consumed or produced product as the module declared it. The registry
// fills `index` once every module is constructed.
struct ProductDeclaration {
  std::string label;
  std::type_index type;
  bool anyType = false;  // consumesAny(): only the size is read
  ProductIndex index = ~ProductIndex{0};
  MergeProducts merge = nullptr;  // a run or lumi product's (see Lumi.h); nullptr: it does not merge
};

// The run and lumi transitions, as bits: which a module's type overrides
// (Module::transitions()).
enum TransitionBits : unsigned {
  kBeginRun = 1,
  kEndRun = 2,
  kBeginLumi = 4,
  kEndLumi = 8,
  kWriteRun = 16,   // an output's writeRun()
  kWriteLumi = 32,  // an output's writeLumi()
  kAllTransitions = 63,
};

namespace detail {
class Worker;
class Boundaries;
class Schedule;
// Sets Module::transitions() (PluginRegistry.h: noteTransitions).
void setTransitions(Module& module, unsigned bits);
}  // namespace detail

// Base of every module. Construction and beginJob/endJob are called by one
// thread; event-time calls follow the module's concurrency class.
class Module {
 public:
  virtual ~Module() = default;
  Module(Module const&) = delete;
  Module& operator=(Module const&) = delete;

  std::string const& label() const { return label_; }
  virtual ModuleKind kind() const = 0;
  virtual Concurrency concurrency() const = 0;
  virtual unsigned concurrencyLimit() const { return 1; }
  virtual bool hasExternalWork() const { return false; }

  virtual void beginJob(JobContext const&) {}
  virtual void endJob() {}

  // Figures of the module's own for the run report, as the text of a JSON
  // object ("" for none): an output's events and bytes written, say. Called
  // after the job, on the thread that ran it.
  virtual std::string details() const { return {}; }

  // What the module consumes and produces: an event's products, or the run
  // and lumi products it reads from the source or puts in its end transitions.
  std::deque<ProductDeclaration> const& consumed(Level level = Level::Event) const { return consumed_[index(level)]; }
  std::deque<ProductDeclaration> const& produced(Level level = Level::Event) const { return produced_[index(level)]; }

  // The conditions records the module reads (consumesConditions), by name,
  // with their index in the job's conditions service once it is built.
  struct ConditionsDeclaration {
    std::string record;
    unsigned index = ~0u;
  };
  std::deque<ConditionsDeclaration> const& conditionsConsumed() const { return conditionsConsumed_; }

  // The run and lumi transitions (TransitionBits) the module's type has
  // callbacks for: a module registered by RegisterModule/RegisterOutput is
  // called only for those; one made otherwise, for every transition. A `one`
  // module that has lumi (run) callbacks sees the lumis (runs) one at a
  // time: the job then holds one lumi (run) in flight.
  unsigned transitions() const { return transitions_; }
  // The LumiCache/RunCache/LumiSum/RunSum members, registered as they are
  // constructed (Lumi.h).
  std::vector<detail::BlockCacheBase*> const& blockCaches() const { return caches_; }

 protected:
  explicit Module(std::string label) : label_(std::move(label)) {}

  template <typename T>
  ProductToken<T> consumes(std::string label) {
    consumed_[0].push_back({std::move(label), typeid(T)});
    return ProductToken<T>(&consumed_[0].back().index);
  }
  ProductToken<AnyProduct> consumesAny(std::string label) {
    consumed_[0].push_back({std::move(label), typeid(AnyProduct), true});
    return ProductToken<AnyProduct>(&consumed_[0].back().index);
  }
  template <typename T>
  ProductToken<T> produces(std::string label) {
    produced_[0].push_back({std::move(label), typeid(T)});
    return ProductToken<T>(&produced_[0].back().index);
  }
  // Run and lumi products: read from the source (NanoAOD's Runs and
  // LuminosityBlocks trees), or put by this module at the block's end.
  template <typename T>
  LumiToken<T> consumesLumi(std::string label) {
    return LumiToken<T>(declare<T>(consumed_[1], std::move(label)));
  }
  template <typename T>
  LumiToken<T> producesLumi(std::string label) {
    return LumiToken<T>(declare<T>(produced_[1], std::move(label)));
  }
  template <typename T>
  RunToken<T> consumesRun(std::string label) {
    return RunToken<T>(declare<T>(consumed_[2], std::move(label)));
  }
  template <typename T>
  RunToken<T> producesRun(std::string label) {
    return RunToken<T>(declare<T>(produced_[2], std::move(label)));
  }
  // A conditions record of the job's (Conditions.h), read through
  // Event::conditions(): the module's calls of an event wait for its payload.
  ConditionsToken consumesConditions(std::string record) {
    conditionsConsumed_.push_back({std::move(record)});
    return ConditionsToken(&conditionsConsumed_.back().index);
  }

 private:
  friend class detail::Worker;
  friend class detail::Boundaries;
  friend class detail::BlockCacheBase;
  friend class ProductRegistry;
  friend class detail::Schedule;
  friend void detail::setTransitions(Module& module, unsigned bits);
  static std::size_t index(Level level) { return static_cast<std::size_t>(level); }
  template <typename T>
  ProductIndex const* declare(std::deque<ProductDeclaration>& declarations, std::string label) {
    declarations.push_back({std::move(label), typeid(T), false, ~ProductIndex{0}, mergerOf<T>()});
    return &declarations.back().index;
  }
  // The scheduler's entry points; the typed bases forward them to the
  // user-facing produce()/filter()/analyze()/write() with the right constness.
  virtual bool doEvent(Event& event) = 0;  // returns the filter decision
  virtual void doAcquire(Event&, Completion) {}
  virtual void doBeginRun(Run const&) {}
  virtual void doEndRun(Run&) {}
  virtual void doBeginLumi(Lumi const&) {}
  virtual void doEndLumi(Lumi&) {}

  std::string label_;
  // By Level: event, lumi, run. Deques: tokens point into them.
  std::deque<ProductDeclaration> consumed_[3];
  std::deque<ProductDeclaration> produced_[3];
  std::deque<ConditionsDeclaration> conditionsConsumed_;
  unsigned transitions_ = kAllTransitions;
  std::vector<detail::BlockCacheBase*> caches_;
};

}  // namespace lanes
