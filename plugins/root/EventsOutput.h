#pragma once
// The `root-events` output: each event's kept products serialised by the
// framework (serialization=root|unrolled) into one byte blob, compressed by
// the framework (codec/Codec.h) per product, per event and/or per batch of
// `batch=` events, one TTree entry per batch (layout: EventBlobs.h).

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <tbb/task_group.h>

#include "codec/Codec.h"
#include "lanes/core/LimitedTaskQueue.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "root/EventBlobs.h"
#include "root/OutputSupport.h"
#include "root/Serialization.h"

class TFile;
class TTree;

namespace lanes::rootio {

// Thread-safe: productReady() serialises (and with compress=product|both
// compresses) each product concurrently into its lane's buffers; write()
// assembles the lane's event (compress=event: compresses it) concurrently,
// then queues it. Batches are gathered by a serial task queue; a full batch
// is compressed (compress=batch|both) by a task of its own in the job's
// arena, and filled into the tree through the serial queue, so the tree and
// file are touched by one task at a time. beginJob, endJob and abandon run
// alone on the job's thread.
class EventsOutput : public global::Output {
 public:
  // Options: file=PATH (required), serialization=root|unrolled (root),
  // compression=none|lz4|zstd (lz4), level=, compress=product|event|batch|both
  // (event), batch=N events per entry (1), keep=GLOB.
  EventsOutput(std::string label, Options const& options);
  ~EventsOutput() override;

  void beginJob(JobContext const& context) override;
  bool wantsProductReady() const override { return true; }
  void productReady(Event const& event, ProductIndex product) const override;
  void write(Event const& event) const override;
  void endJob() override;
  void abandon() override;
  std::string details() const override;
  void mergeParts(std::vector<std::string> const& parts) override;
  void discardParts(std::vector<std::string> const& parts) override;

 private:
  struct Batch;
  EventsOutput(std::string label, Options const& options, PluginOptions const& checked);

  void add(std::shared_ptr<Batch> const& record) const;
  void finishBatch(std::shared_ptr<Batch> batch) const;
  void fill(Batch& batch) const;
  void writeProducts();
  void keepError() const;
  void rethrowError() const;
  bool close();

  mutable OutputFile file_;  // fail() from the filling task
  SerializationKind serialization_;
  codec::Compression compression_;
  FrameLevel level_;
  std::uint64_t batchSize_;

  SerializedColumns serialized_;
  // Per lane, per column: the product's bytes of the lane's current event.
  mutable std::vector<std::vector<std::vector<char>>> laneBytes_;

  std::unique_ptr<TFile> rootFile_;
  TTree* tree_ = nullptr;  // owned by rootFile_
  // Touched only by the serial queue's tasks (and endJob after they end).
  mutable std::shared_ptr<Batch> open_;
  mutable std::unique_ptr<Batch> branches_;  // what the tree's branches point to
  mutable std::uint64_t entries_ = 0;
  std::unique_ptr<tbb::task_group> group_;  // beginJob()'s
  mutable std::unique_ptr<LimitedTaskQueue> serial_;

  mutable std::atomic<std::uint64_t> written_{0};
  mutable std::atomic<std::uint64_t> bytes_{0};
  mutable std::atomic<bool> failed_{false};
  mutable std::mutex errorMutex_;  // guards error_: taken only on failure
  mutable std::exception_ptr error_;
};

}  // namespace lanes::rootio
