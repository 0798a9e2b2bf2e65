#pragma once
// Where the outputs of a shared-writer multi-process job send their events:
// serialised batches, which one writer process merges into each output file
// as they arrive, so that no merge step is left for the end of the job.

#include <cstddef>

namespace lanes {

// Thread-safe, and safe across the processes of one job: any thread of any
// worker may ship() at any time.
class BatchSink {
 public:
  virtual ~BatchSink() = default;

  // The largest batch ship() takes.
  virtual std::size_t maxBatchBytes() const = 0;

  // Hands a batch of the job's output number `output` (its index among the
  // job's outputs, the same in every process) to the writer; returns once
  // the bytes are copied. Blocks while the writer is behind. Throws
  // lanes::Exception (a batch larger than maxBatchBytes(), a broken channel).
  virtual void ship(unsigned output, void const* bytes, std::size_t size) = 0;
};

}  // namespace lanes
