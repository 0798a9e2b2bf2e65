#pragma once
// The emulated device: behaves like a GPU in the ways that matter for
// scheduling. It has a fixed number of kernel slots (kernels beyond them wait
// for one), one copy engine per direction with its own bandwidth, and
// in-order queues. Device work runs on the device's own threads, one per
// queue, which stand for the hardware: they are std::threads outside the
// oneTBB arena and *sleep* for the work's duration, so device time costs no
// host CPU, as on a real GPU. Everything the host does costs real host CPU:
// each enqueue burns the launch overhead on the calling thread, host
// callbacks run on the device threads, and a spinning wait polls.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <semaphore>

#include "accel/Device.h"
#include "lanes/core/PluginOptions.h"

namespace lanes::accel {

// Immutable value type.
struct EmulatedConfig {
  unsigned kernelSlots = 4;                  // kernels that run at once
  double hostToDeviceBytesPerS = 12e9;       // the h2d copy engine
  double deviceToHostBytesPerS = 12e9;       // the d2h copy engine
  double launchOverheadS = 5e-6;             // host CPU per enqueue

  // Options: slots=N, h2d=BYTES/S, d2h=BYTES/S, launch=SECONDS. Throws
  // lanes::Exception naming the option for a bad value.
  static EmulatedConfig fromOptions(PluginOptions const& options);
};

// Figures for tests and reports. Immutable value type.
struct EmulatedStatistics {
  std::uint64_t kernels = 0;          // kernels that ran (not the skipped ones)
  unsigned maxConcurrentKernels = 0;  // high-water mark of kernels running at once
  std::uint64_t queues = 0;           // queues made
  // How much longer than asked its copies' and kernels' sleeps took, on
  // average (the OS's timer slack and wake-up): what `lanes model` adds to each.
  double sleepOvershootS = 0;
};

// Thread-safe. Queues may outlive nothing of the device: destroy them before it.
class EmulatedDevice : public Device {
 public:
  explicit EmulatedDevice(EmulatedConfig config);

  std::unique_ptr<Queue> makeQueue() override;
  std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes) override;
  std::shared_ptr<HostWord> makeHostWord() override;

  EmulatedStatistics statistics() const;
  EmulatedConfig const& config() const { return config_; }

  // Device-side resources, used by the queues' threads.
  void runKernel(Kernel const& kernel);
  void copy(std::size_t bytes, bool toDevice);
  void launchOverhead() const;

 private:
  // Sleeps for a copy's or a kernel's time, tallying how much longer it took.
  void sleepTallied(double seconds);

  EmulatedConfig config_;
  std::counting_semaphore<> kernelSlots_;
  std::mutex hostToDeviceEngine_;  // held for a copy's duration: one copy per direction at a time
  std::mutex deviceToHostEngine_;
  std::atomic<unsigned> runningKernels_{0};
  std::atomic<unsigned> maxConcurrentKernels_{0};
  std::atomic<std::uint64_t> kernels_{0};
  std::atomic<std::uint64_t> queues_{0};
  std::atomic<std::uint64_t> sleeps_{0};
  std::atomic<std::int64_t> overshootNs_{0};
};

}  // namespace lanes::accel
