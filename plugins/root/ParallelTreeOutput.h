#pragma once
// The `parallel-root` output: several events written at once, each into one
// of N in-memory buffer files that ROOT's TBufferMerger merges into the
// output file (the CMS multi-threaded output module's design).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tbb/concurrent_priority_queue.h>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "root/OutputSupport.h"
#include "root/SharedWriter.h"
#include "root/TreeFileOutput.h"
#include "root/TreeFiller.h"

namespace ROOT {
class TBufferMerger;
class TBufferMergerFile;
}  // namespace ROOT

namespace lanes::rootio {

// A limited(N) module, N = concurrency: write() runs for up to N events at
// once and takes a buffer of its own from a concurrent priority queue, so a
// buffer is confined to one call at a time. The free buffer holding the most
// events is taken first, so buffers fill and merge sooner and fewer merges
// happen. A full buffer is merged into the output by the call that filled
// it, inside the framework's task (TBufferMerger starts no threads).
// beginJob, endJob and abandon run on the job's thread, with no write().
// In a shared-writer multi-process job a worker's buffers are BatchFiles,
// each shipped to the writer by the call that filled it (which blocks only
// while the writer is behind); the parent's output, the writer, merges the
// batches into a SharedFile on the parent's thread.
class ParallelTreeOutput : public TreeFileOutput<limited::Output> {
 public:
  // Options: file=PATH (required), concurrency=N (buffers; default 2), flush=EVENTS
  // (a buffer is merged after this many; default 5000: each merge writes
  // every branch's basket, so rarer merges make fewer, fuller baskets, at
  // the price of a buffer's memory), tree=NAME,
  // compression=, level=, basket=, split=, keep= as the `root` output.
  ParallelTreeOutput(std::string label, Options const& options);
  // As the `root` output makes it for a job of several lanes (TreeOutput.h):
  // its messages name `plugin`, and concurrency= defaults to `buffers`.
  ParallelTreeOutput(std::string label, Options const& options, std::string const& plugin, unsigned buffers);
  ~ParallelTreeOutput() override;

  void beginJob(JobContext const& context) override;
  void write(Event const& event) const override;
  // Keeps the lumi's (run's) row, written with the file (RecordFiles.h).
  void writeLumi(Lumi const& lumi) const override;
  void writeRun(Run const& run) const override;
  void endJob() override;
  void abandon() override;
  std::string details() const override;

 private:
  struct Buffer;
  struct FullestFirst {
    bool operator()(Buffer const* a, Buffer const* b) const;
  };

  ParallelTreeOutput(std::string label, Options const& options, PluginOptions const& checked, unsigned buffers);
  void close();
  void merge(Buffer& buffer) const;

  TreeSettings settings_;
  std::uint64_t flushEvents_;
  std::vector<Column> columns_;
  std::unique_ptr<ROOT::TBufferMerger> merger_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  mutable tbb::concurrent_priority_queue<Buffer*, FullestFirst> free_;
  mutable std::atomic<std::uint64_t> written_{0};
  mutable std::atomic<std::uint64_t> merges_{0};  // or batches shipped
  mutable std::atomic<std::uint64_t> bytesShipped_{0};
  bool shipping_ = false;  // this part ships batches
};

}  // namespace lanes::rootio
