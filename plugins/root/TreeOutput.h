#pragma once
// The `root` output's serial writer: one TTree, a branch per kept product,
// written by one event at a time (a `one` module), compressing with ROOT IMT
// on the job's threads when it has more than one. The `root` output is this
// in a job of one lane or one thread; else ParallelTreeOutput (TreeOutput.cpp).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "root/OutputSupport.h"
#include "root/RootSupport.h"
#include "root/SharedWriter.h"
#include "root/TreeFileOutput.h"
#include "root/TreeFiller.h"

class TFile;
class TTree;

namespace lanes::rootio {

// A `one` module: the framework serialises write(); beginJob, endJob and
// abandon run on the job's thread. With IMT (imt=true, the default in a job
// of more than one thread) ROOT compresses the baskets that an event fills
// (every branch's, at a cluster's end) as tasks on the job's threads inside
// write(), which waits for them under this_task_arena::isolate, so that it
// never picks up a long framework task meanwhile; the other threads take
// them between their own tasks.
// In a shared-writer multi-process job a worker's output fills a BatchFile
// and ships it every flush= events from write() (blocking there only while
// the writer is behind); the parent's, the writer, merges the batches into
// a SharedFile on the parent's thread.
class TreeOutput : public TreeFileOutput<one::Output> {
 public:
  // Options: file=PATH (required), tree=NAME (Events), compression=zlib|lz4|zstd|lzma,
  // level=0..9, basket=BYTES, split=LEVEL, autoflush=N (entries per cluster;
  // negative: bytes, as ROOT's SetAutoFlush), imt=true|false (default: true
  // when the job has more than one thread), keep=GLOB,
  // flush=EVENTS (events per batch in a shared-writer job; default 5000).
  TreeOutput(std::string label, Options const& options);
  ~TreeOutput() override;

  void beginJob(JobContext const& context) override;
  void write(Event const& event) override;
  // Keeps the lumi's (run's) row, written with the file (RecordFiles.h).
  void writeLumi(Lumi const& lumi) override;
  void writeRun(Run const& run) override;
  void endJob() override;
  void abandon() override;
  std::string details() const override;

 private:
  TreeOutput(std::string label, Options const& options, PluginOptions const& checked);
  // Closes the file; false if ROOT failed to write some of it.
  bool close();
  void ship();
  // Writes the Events tree and the records into the file.
  void writeTrees();

  TreeSettings settings_;
  long long autoFlush_;
  std::uint64_t flushEvents_;
  std::optional<bool> imt_;  // as given; unset: by the job's threads
  std::optional<JobImplicitMT> implicitMT_;
  std::vector<Column> columns_;
  std::unique_ptr<TFile> rootFile_;
  TTree* tree_ = nullptr;  // owned by rootFile_
  std::unique_ptr<TreeFiller> filler_;
  std::unique_ptr<BatchFile> batch_;    // a shared-writer worker's, instead of rootFile_
  std::uint64_t written_ = 0;
  bool shipping_ = false;  // this part ships batches
  std::uint64_t batchesShipped_ = 0, bytesShipped_ = 0;
};

}  // namespace lanes::rootio
