#pragma once
// The RNTuple outputs: `rntuple` (one RNTupleWriter, a `one` module) and
// `rntuple-parallel` (RNTupleParallelWriter, a fill context per concurrent
// call, a limited(N) module). A field per kept product, plus the event id;
// beside `Events`, the run and lumi records as the RNTuples
// `LuminosityBlocks` and `Runs` (RecordFiles.h).

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mutex>

#include <tbb/concurrent_queue.h>
#include <tbb/task_group.h>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "root/TreeRecords.h"
#include "root/OutputSupport.h"
#include "root/RootSupport.h"

namespace ROOT {
class RNTupleWriter;
class RNTupleParallelWriter;
}  // namespace ROOT

namespace lanes::rootio {

// The options and columns both RNTuple outputs share, and how an event's
// products are bound to an entry and filled. Immutable after beginJob.
class NTupleLayout {
 public:
  // Options: file=PATH (required), ntuple=NAME (Events), compression=,
  // level=, cluster=BYTES (approximate compressed size of a cluster, and the
  // writer's page buffer: its pages are flushed, so compressed, within it;
  // default `clusterBytes`, not ROOT's 128 MiB: a writer that compresses
  // pages when their cluster is flushed, and a job that never fills one,
  // would compress everything at the end, on one thread), keep=.
  NTupleLayout(PluginOptions const& checked, std::size_t clusterBytes);

  struct Filler;  // one entry with its field tokens; confined to one call at a time

  OutputFile& file() { return file_; }
  OutputFile const& file() const { return file_; }
  std::string const& name() const { return name_; }
  int compression() const { return compression_; }
  std::size_t clusterBytes() const { return clusterBytes_; }
  std::vector<Column> const& columns() const { return columns_; }
  void setColumns(std::vector<Column> columns) { columns_ = std::move(columns); }
  // OutputFile::mergeParts(), leaving out the parts that hold no entry, and
  // merging every part's run and lumi records into `records` (empty).
  void mergeParts(std::vector<std::string> const& parts, TreeRecords& records);
  // Writes `records` beside the events of the file, closed; then commits it
  // with the `events` written.
  void commit(TreeRecords const& records, std::uint64_t events);
  // Counts the entries of the RNTuple in a file.
  EntryCounter entries() const;
  // Runs `write`, which writes the file: a ROOT exception fails the file
  // (OutputFile::fail()), saying why.
  void writing(std::function<void()> const& write);

 private:
  OutputFile file_;
  std::string name_;
  int compression_;
  std::size_t clusterBytes_;
  std::vector<Column> columns_;
};

// A `one` module: the framework serialises write(); the other calls run on
// the job's thread. With IMT (imt=true, the default in a job of more than
// one thread) the writer hands each full page to a task on the job's threads
// to compress, and waits for them only as it commits a cluster.
class NTupleOutput : public one::Output {
 public:
  // Options: imt=true|false, plus those of NTupleLayout.
  NTupleOutput(std::string label, Options const& options);
  ~NTupleOutput() override;

  void beginJob(JobContext const& context) override;
  void write(Event const& event) override;
  void writeLumi(Lumi const& lumi) override;
  void writeRun(Run const& run) override;
  void endJob() override;
  void abandon() override;
  void mergeParts(std::vector<std::string> const& parts) override;
  void discardParts(std::vector<std::string> const& parts) override;
  std::string details() const override;

 private:
  NTupleLayout layout_;
  std::optional<bool> imt_;  // as given; unset: by the job's threads
  std::optional<JobImplicitMT> implicitMT_;  // outlives writer_
  std::unique_ptr<ROOT::RNTupleWriter> writer_;
  std::unique_ptr<NTupleLayout::Filler> filler_;
  std::uint64_t written_ = 0;
  RecordKeeper records_{*this};
};

// A limited(N) module, N = concurrency: each write() takes a fill context of
// its own from a concurrent queue, so a context is confined to one call (or
// to the flush task it hands it to); the writer appends the contexts'
// clusters to the one RNTuple.
class ParallelNTupleOutput : public limited::Output {
 public:
  // Options: concurrency=N (default 2), flush=fill|framework (who compresses
  // and writes a full cluster: the write() that filled it, or a task of its
  // own in the job's arena, which write() starts and leaves the context to:
  // the next write() takes another, or a new one), plus those of NTupleLayout.
  ParallelNTupleOutput(std::string label, Options const& options);
  // close() waits for the flush tasks, so flushes_ never throws for a missing wait.
  ~ParallelNTupleOutput() noexcept override;

  void beginJob(JobContext const& context) override;
  void write(Event const& event) const override;
  void writeLumi(Lumi const& lumi) const override;
  void writeRun(Run const& run) const override;
  void endJob() override;
  void abandon() override;
  void mergeParts(std::vector<std::string> const& parts) override;
  void discardParts(std::vector<std::string> const& parts) override;
  std::string details() const override;

 private:
  ParallelNTupleOutput(std::string label, Options const& options, PluginOptions const& checked);
  NTupleLayout::Filler* takeFiller() const;
  // A new fill context's filler, kept in fillers_.
  NTupleLayout::Filler* addFiller() const;
  // flush=framework: compresses and writes the filler's cluster in a task.
  void flushInTask(NTupleLayout::Filler* filler) const;
  void close();

  NTupleLayout layout_;
  std::unique_ptr<ROOT::RNTupleParallelWriter> writer_;
  mutable std::vector<std::unique_ptr<NTupleLayout::Filler>> fillers_;  // added to under fillersLock_
  mutable tbb::concurrent_queue<NTupleLayout::Filler*> free_;
  mutable std::atomic<std::uint64_t> written_{0};
  bool frameworkFlush_;
  mutable std::mutex fillersLock_;  // flush=framework: write() may add a filler
  mutable tbb::task_group flushes_;
  mutable std::mutex flushErrorLock_;
  mutable std::string flushError_;  // the first failed flush task's reason
  mutable std::atomic<bool> flushFailed_{false};
  mutable std::atomic<std::uint64_t> flushTasks_{0};  // for the report
  RecordKeeper records_{*this};
};

}  // namespace lanes::rootio
