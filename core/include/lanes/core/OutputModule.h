#pragma once
// The part of every output module that does not depend on its concurrency
// class: which products it keeps, the per-product "ready" call, and what
// happens to its file when the job fails.

#include <cstddef>
#include <string>
#include <vector>

#include "lanes/core/Module.h"
#include "lanes/core/ProcessGroup.h"

namespace lanes {

// Construction and the job transitions run on one thread; write() follows the
// concurrency class; productReady() may be called concurrently from any lane,
// and for different products of one event (a source's products ready at
// once are announced as a parallel range); never twice for one product of
// one event.
class OutputModule : public Module {
 public:
  // Resolves the keep patterns into consumed products, and notes the job's
  // run and lumi products (`runs`, `lumis`). Called by the framework once
  // every producer is known, before the dependency graph is built.
  void selectProducts(ProductRegistry const& registry, ProductRegistry const* runs = nullptr,
                      ProductRegistry const* lumis = nullptr);

  // The job's run and lumi products, as JobContext gives them, but known
  // from selectProducts() on: the parent of a multi-process job merges its
  // workers' run and lumi records without beginning its outputs. nullptr
  // before (an output made outside a job).
  ProductRegistry const* runRegistry() const { return runRegistry_; }
  ProductRegistry const* lumiRegistry() const { return lumiRegistry_; }

  // Ask for productReady() as each kept product becomes available, before write().
  virtual bool wantsProductReady() const { return false; }
  virtual void productReady(Event const&, ProductIndex) const {}

  // The job failed: drop what was written rather than leave a file that looks valid.
  virtual void abandon() {}

  // A multi-process job: every process wrote the `parts` named (see
  // partPath()); combine them into the one output a single process would
  // have written, and remove them. discardParts() removes them, and what a
  // killed process left under a temporary name, when the job failed. Called
  // in the parent process after every worker has ended; outputs that write
  // no file have nothing to do. Throw lanes::Exception naming the file.
  virtual void mergeParts(std::vector<std::string> const& parts) {}
  virtual void discardParts(std::vector<std::string> const& parts) {}

  // A shared-writer multi-process job: the workers' outputs ship batches
  // (JobContext::shipBatch) and the parent, the writer, merges each as it
  // arrives into the one output file: openShared() before the first batch,
  // mergeBatch() for each, then commitShared(), or abandonShared() when the
  // job failed (no file is left). Called on the parent's one thread; the
  // worker-side calls of the same object (beginJob ... endJob of a part) do
  // not touch the shared file. An output that returns false from
  // sharesWriter() cannot take part, and the job refuses to start.
  virtual bool sharesWriter() const { return false; }
  virtual void openShared() {}
  virtual void mergeBatch(void const* bytes, std::size_t size) {}
  virtual void commitShared() {}
  virtual void abandonShared() {}

  // An output that writes one file together with the job's other processes
  // (an MPI job's ranks: hdf5 parallel=true). Each process writes its part
  // as usual; once the job knows that every part succeeded, writeTogether()
  // runs on every process at once (on each one's main thread, in the same
  // order of outputs), and writes the file under a temporary name. Then
  // mergeParts(), in the process that merges, takes that file (it checks and
  // renames it) instead of merging the parts. Throws lanes::Exception on
  // every process alike if it failed on any, and then leaves no file.
  virtual void writeTogether(ProcessGroup const& group) {}

 protected:
  using Module::Module;
  // Glob patterns ('*' and '?') over product labels; none means every product.
  void keep(std::vector<std::string> patterns) { keepPatterns_ = std::move(patterns); }

 private:
  friend class detail::Boundaries;
  // The typed bases forward these to writeLumi()/writeRun() (ModuleTypes.h).
  virtual void doWriteLumi(Lumi const&) {}
  virtual void doWriteRun(Run const&) {}

  std::vector<std::string> keepPatterns_;
  ProductRegistry const* runRegistry_ = nullptr;
  ProductRegistry const* lumiRegistry_ = nullptr;
};

// Glob match with '*' (any run) and '?' (any one character).
bool globMatch(std::string const& pattern, std::string const& text);

}  // namespace lanes
