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
#include <string>
#include <typeindex>
#include <vector>

#include "lanes/core/Completion.h"
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
};

namespace detail {
class Worker;
}

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

  std::deque<ProductDeclaration> const& consumed() const { return consumed_; }
  std::deque<ProductDeclaration> const& produced() const { return produced_; }

 protected:
  explicit Module(std::string label) : label_(std::move(label)) {}

  template <typename T>
  ProductToken<T> consumes(std::string label) {
    consumed_.push_back({std::move(label), typeid(T)});
    return ProductToken<T>(&consumed_.back().index);
  }
  ProductToken<AnyProduct> consumesAny(std::string label) {
    consumed_.push_back({std::move(label), typeid(AnyProduct), true});
    return ProductToken<AnyProduct>(&consumed_.back().index);
  }
  template <typename T>
  ProductToken<T> produces(std::string label) {
    produced_.push_back({std::move(label), typeid(T)});
    return ProductToken<T>(&produced_.back().index);
  }

 private:
  friend class detail::Worker;
  friend class ProductRegistry;
  // The scheduler's entry points; the typed bases forward them to the
  // user-facing produce()/filter()/analyze()/write() with the right constness.
  virtual bool doEvent(Event& event) = 0;  // returns the filter decision
  virtual void doAcquire(Event&, Completion) {}

  std::string label_;
  std::deque<ProductDeclaration> consumed_;  // deque: tokens point into it
  std::deque<ProductDeclaration> produced_;
};

}  // namespace lanes
