#pragma once
// What the blob outputs (root-events, pds) share: each event's kept products
// serialised (serialization=root|unrolled) and compressed by the framework
// (codec/Codec.h) per product, per event and/or per batch of events, then
// handed, a batch at a time, to the output's own sink.

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <tbb/task_group.h>

#include "codec/Codec.h"
#include "lanes/core/LimitedTaskQueue.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "root/BlobBatch.h"
#include "root/EventBlobs.h"
#include "root/Serialization.h"

namespace lanes::rootio {

// Thread-safe: productReady() serialises (and with compress=product|both
// compresses) each product concurrently into its lane's buffers; write()
// assembles the lane's event (compress=event: compresses it) concurrently,
// then queues it. Batches are gathered by a serial task queue; a full batch
// is compressed (compress=batch|both) by a task of its own in the job's
// arena, and handed to the sink through the serial queue, so the sink runs
// one batch at a time. begin, finish and wait run alone on the job's thread.
class BlobBuilder {
 public:
  // Called on the serial queue with each full (and the last) batch; what it
  // throws fails the output (write() and finish() rethrow it).
  using Sink = std::function<void(BlobBatch& batch)>;

  // From the output's options serialization=root|unrolled (root),
  // compression=none|lz4|zstd (lz4), level=, compress=product|event|batch|both
  // (event), batch=N events (1). `format` names the output in messages.
  BlobBuilder(std::string format, Options const& options, PluginOptions const& checked);
  ~BlobBuilder();

  // Before each job (or part): the kept products of `output`, a serializer
  // each (throws lanes::ConfigurationError as makeSerializer()), and `sink`.
  void begin(JobContext const& context, Module const& output, Sink sink);
  void productReady(Event const& event, ProductIndex product) const;
  void write(Event const& event) const;
  // Hands over the last, partial batch and waits for every batch; rethrows a failure.
  void finish();
  // Waits for the tasks in flight (a failed job's abandon()).
  void wait();

  SerializedColumns const& serialized() const { return serialized_; }
  SerializationKind serialization() const { return serialization_; }
  codec::Compression const& compression() const { return compression_; }
  FrameLevel level() const { return level_; }
  // For the report: the settings and the blob bytes written.
  nlohmann::json details() const;
  // Events and blob bytes the sink took, and its batches.
  std::uint64_t written() const { return written_.load(); }
  std::uint64_t bytes() const { return bytes_.load(); }
  std::uint64_t batches() const { return batches_.load(); }

 private:
  void add(std::shared_ptr<BlobBatch> const& record) const;
  void finishBatch(std::shared_ptr<BlobBatch> batch) const;
  void hand(BlobBatch& batch) const;
  void keepError() const;
  void rethrowError() const;

  std::string format_;
  SerializationKind serialization_;
  codec::Compression compression_;
  FrameLevel level_;
  std::uint64_t batchSize_;
  Sink sink_;

  SerializedColumns serialized_;
  // Per lane, per column: the product's bytes of the lane's current event.
  mutable std::vector<std::vector<std::vector<char>>> laneBytes_;
  // Touched only by the serial queue's tasks (and finish() after they end).
  mutable std::shared_ptr<BlobBatch> open_;
  std::unique_ptr<tbb::task_group> group_;  // begin()'s
  mutable std::unique_ptr<LimitedTaskQueue> serial_;

  mutable std::atomic<std::uint64_t> written_{0};
  mutable std::atomic<std::uint64_t> bytes_{0};
  mutable std::atomic<std::uint64_t> batches_{0};
  mutable std::atomic<bool> failed_{false};
  mutable std::mutex errorMutex_;  // guards error_: taken only on failure
  mutable std::exception_ptr error_;
};

}  // namespace lanes::rootio
