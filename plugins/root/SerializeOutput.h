#pragma once
// The `serialize` output: serialises each kept product (ROOT's TBufferFile,
// or unrolled: Serialization.h) as soon as it becomes ready, concurrently,
// and measures the cost, optionally of reading it back too; it writes no
// file. This is the CPU cost of ROOT output without compression or I/O.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "root/OutputSupport.h"
#include "root/Serialization.h"

namespace lanes::rootio {

// Thread-safe: productReady() runs concurrently for any product of any
// lane, each call on a buffer of its thread's own; the serializers are
// immutable and the per-product figures atomic counters. beginJob() runs
// alone, before any event.
class SerializeOutput : public global::Output {
 public:
  // Options: serialization=root|unrolled (root), deserialize=true|false
  // (false: also read each product back from its bytes, timed apart),
  // keep=GLOB (repeatable; none: every product).
  SerializeOutput(std::string label, Options const& options);

  void beginJob(JobContext const& context) override;
  bool wantsProductReady() const override { return true; }
  void productReady(Event const& event, ProductIndex product) const override;
  void write(Event const& event) const override;
  std::string details() const override;

 private:
  struct Figures {
    std::uint64_t calls = 0;
    std::uint64_t bytes = 0;
    std::uint64_t nanoseconds = 0;
    std::uint64_t readNanoseconds = 0;
  };
  // Totals per column, in serialized_.columns order.
  std::vector<Figures> figures() const;

  struct alignas(64) Counters {
    std::atomic<std::uint64_t> calls{0}, bytes{0}, nanoseconds{0}, readNanoseconds{0};
  };

  SerializationKind serialization_;
  bool deserialize_;
  SerializedColumns serialized_;
  std::unique_ptr<Counters[]> counters_;
  mutable std::atomic<std::uint64_t> written_{0};
};

}  // namespace lanes::rootio
