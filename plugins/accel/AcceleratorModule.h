#pragma once
// The `accel` module: an external-work producer with a device implementation
// and a CPU one. Under --accel none it runs the CPU implementation (busy CPU
// work for time + scale x input bytes); on a device, acquire() places its
// work on a queue (QueueCache.h), copies host inputs to the device, launches
// a kernel that takes 1/speedup of the CPU time, optionally copies the result
// back to the host, and arranges its completion as the strategy says;
// produce() puts the result. Both implementations compute the same digest
// of the inputs (Digest.h), so a job's products do not depend on where or
// how it ran.

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accel/Accelerator.h"
#include "accel/Digest.h"
#include "lanes/core/ModuleTypes.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::accel {

// Thread-safe: acquire() and produce() run concurrently for all lanes. The
// work in flight between them is kept per lane (a lane runs one module's
// acquire() before its produce(), never two at once); the rest is immutable
// but for atomic counters.
class AcceleratorModule : public global::ExternalProducer {
 public:
  // Options: consumes=LABEL (repeatable), produces.<label>=BYTES (exactly
  // one), time=SECONDS + scale=SECONDS/BYTE of CPU per call, speedup=X
  // (default 10), to-host=BOOL (copy the result device->host), fail-at=K
  // (the kernel of event K faults; device runs only).
  AcceleratorModule(std::string label, Options const& options);

  void beginJob(JobContext const& context) override;
  void acquire(Event const& event, Completion completion) const override;
  void produce(Event& event) const override;
  std::string details() const override;

 private:
  struct Input {
    std::string label;
    ProductToken<AnyProduct> token;
  };
  // The device work of one lane's event, from acquire() to produce().
  struct InFlight {
    std::shared_ptr<DeviceBuffer> output;
    std::shared_ptr<Queue> queue;
    std::shared_ptr<Marker const> marker;
    std::shared_ptr<HostWord> hostResult;  // to-host only
    std::uint64_t flowOut = 0;             // --trace: the arrow from the device to produce()
  };

  AcceleratorModule(std::string label, PluginOptions const& options);

  double cpuSeconds(Event const& event) const;
  std::uint64_t hostDigest(Event const& event, Input const& input) const;
  std::uint64_t seed(Event const& event) const;
  std::uint64_t runOnCpu(Event const& event) const;
  InFlight enqueue(Event const& event) const;
  bool waitsForDevice() const;
  void complete(InFlight const& work, Completion completion) const;
  void tally(std::uint64_t digest) const;

  std::vector<Input> inputs_;
  std::string outputLabel_;
  std::size_t outputBytes_;
  double time_;
  double scale_;
  double speedup_;
  bool toHost_;
  std::optional<std::uint64_t> failAt_;
  std::shared_ptr<Accelerator> accelerator_;  // null: the CPU implementation
  ProductToken<Digest> hostProduct_;
  ProductToken<DeviceProduct> deviceProduct_;
  mutable std::vector<InFlight> inFlight_;  // one per lane, each touched only by its lane
  mutable std::atomic<std::uint64_t> results_{0};
  mutable std::atomic<std::uint64_t> resultSum_{0};
  // The device work it enqueued (details(): what `lanes model` replays).
  mutable std::atomic<std::uint64_t> deviceCalls_{0};
  mutable std::atomic<std::uint64_t> kernelNanoseconds_{0};
  mutable std::atomic<std::uint64_t> toDeviceBytes_{0};
  mutable std::atomic<std::uint64_t> toDeviceCopies_{0};
  mutable std::atomic<std::uint64_t> queueWaits_{0};  // waitFor() another queue's marker
};

}  // namespace lanes::accel
