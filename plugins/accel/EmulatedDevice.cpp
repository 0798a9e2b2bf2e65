#include "accel/EmulatedDevice.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <thread>

#include "accel/Digest.h"
#include "lanes/core/Exception.h"
#include "lanes/monitor/DeviceTrace.h"
#include "mimicry/BusyWork.h"
#include "mimicry/WorkerPool.h"

namespace lanes::accel {
namespace {

void sleepFor(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// The digest word at the start of a buffer. Atomic so that a missing
// ordering between queues shows up as a wrong result, not as undefined behaviour.
class EmulatedBuffer : public DeviceBuffer {
 public:
  explicit EmulatedBuffer(std::size_t bytes) : DeviceBuffer(bytes) {}
  std::atomic<std::uint64_t> word{0};
};

EmulatedBuffer& emulated(DeviceBuffer& buffer) { return static_cast<EmulatedBuffer&>(buffer); }
EmulatedBuffer const& emulated(DeviceBuffer const& buffer) { return static_cast<EmulatedBuffer const&>(buffer); }

// A failure is kept as its message and reported as a new exception each
// time: the framework adds context to the exception it is given, so two
// events must never share one.
using Failure = std::string;  // empty: none

std::exception_ptr report(Failure const& failure) {
  return failure.empty() ? nullptr : std::make_exception_ptr(Exception(failure));
}

// Thread-safe: reached once by its queue's thread, waited on by any thread.
class EmulatedMarker : public Marker {
 public:
  void reach(Failure failure) {
    {
      std::lock_guard lock(mutex_);
      failure_ = std::move(failure);
      reached_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
  }

  void wait(HostWait how) const override {
    if (auto error = report(waitQuietly(how))) std::rethrow_exception(error);
  }

  // Waits, and returns the failure before the marker instead of throwing it.
  Failure waitQuietly(HostWait how) const {
    if (how == HostWait::Spin) {
      while (!reached_.load(std::memory_order_acquire)) std::this_thread::yield();
    }
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [this] { return reached_.load(std::memory_order_relaxed); });
    return failure_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable wake_;
  std::atomic<bool> reached_{false};
  Failure failure_;
};

// Thread-safe: any thread enqueues; the queue's own thread (a one-thread
// WorkerPool) runs the work in order. The sticky failure is touched only by
// that thread. The destructor finishes the work already enqueued (callbacks
// included), then joins.
class EmulatedQueue : public Queue {
 public:
  EmulatedQueue(EmulatedDevice& device, unsigned index) : device_(device), index_(index) {}

  void copyToDevice(std::shared_ptr<HostWord const> from, std::shared_ptr<DeviceBuffer> to) override {
    enqueue([this, from = std::move(from), to = std::move(to)] {
      deviceTrace::Span span(index_, "copy to device");
      device_.copy(to->bytes(), true);
      emulated(*to).word.store(from->value, std::memory_order_relaxed);
    });
  }

  void copyToHost(std::shared_ptr<DeviceBuffer const> from, std::shared_ptr<HostWord> to) override {
    enqueue([this, from = std::move(from), to = std::move(to)] {
      deviceTrace::Span span(index_, "copy to host");
      device_.copy(from->bytes(), false);
      to->value = emulated(*from).word.load(std::memory_order_relaxed);
    });
  }

  void launch(Kernel kernel) override {
    enqueue([this, kernel = std::move(kernel)] {
      deviceTrace::Span span(index_, kernel.name, kernel.flowIn, kernel.flowOut);
      device_.runKernel(kernel);
    });
  }

  std::shared_ptr<Marker const> record() override {
    auto marker = std::make_shared<EmulatedMarker>();
    enqueueAlways([this, marker] { marker->reach(failure_); });
    return marker;
  }

  void waitFor(std::shared_ptr<Marker const> marker) override {
    enqueueAlways([this, marker = std::static_pointer_cast<EmulatedMarker const>(std::move(marker))] {
      auto failure = marker->waitQuietly(HostWait::Block);
      if (failure_.empty()) failure_ = std::move(failure);
    });
  }

  void onDone(std::function<void(std::exception_ptr)> callback) override {
    enqueueAlways([this, callback = std::move(callback)] { callback(report(failure_)); });
  }

 private:
  // Work that a failure earlier in the queue skips (copies, kernels).
  void enqueue(std::function<void()> work) {
    enqueueAlways([this, work = std::move(work)] {
      if (!failure_.empty()) return;
      try {
        work();
      } catch (...) {
        failure_ = describe(std::current_exception());
      }
    });
  }

  // Work that runs whatever happened before (markers, waits, callbacks).
  void enqueueAlways(std::function<void()> work) {
    device_.launchOverhead();
    thread_.submit(std::move(work));
  }

  EmulatedDevice& device_;
  unsigned const index_;              // its track in the trace: "device queue INDEX"
  Failure failure_;                   // the queue thread's only
  mimicry::WorkerPool thread_{1};     // last: joined before the members above go
};

// Keeps `peak` at least `value`.
void raiseTo(std::atomic<unsigned>& peak, unsigned value) {
  unsigned seen = peak.load(std::memory_order_relaxed);
  while (seen < value && !peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

}  // namespace

EmulatedConfig EmulatedConfig::fromOptions(PluginOptions const& options) {
  EmulatedConfig config;
  config.kernelSlots = static_cast<unsigned>(options.positive("slots", config.kernelSlots, PluginOptions::kMaxConcurrency));
  config.hostToDeviceBytesPerS = options.nonNegative("h2d", config.hostToDeviceBytesPerS);
  config.deviceToHostBytesPerS = options.nonNegative("d2h", config.deviceToHostBytesPerS);
  config.launchOverheadS = options.nonNegative("launch", config.launchOverheadS);
  if (config.hostToDeviceBytesPerS <= 0) options.fail("h2d", "must be > 0 bytes/s");
  if (config.deviceToHostBytesPerS <= 0) options.fail("d2h", "must be > 0 bytes/s");
  return config;
}

EmulatedDevice::EmulatedDevice(EmulatedConfig config)
    : config_(config), kernelSlots_(static_cast<std::ptrdiff_t>(config.kernelSlots)) {}

std::unique_ptr<Queue> EmulatedDevice::makeQueue() {
  auto const index = queues_.fetch_add(1, std::memory_order_relaxed);
  return std::make_unique<EmulatedQueue>(*this, static_cast<unsigned>(index));
}

std::shared_ptr<DeviceBuffer> EmulatedDevice::allocate(std::size_t bytes) {
  return std::make_shared<EmulatedBuffer>(bytes);
}

std::shared_ptr<HostWord> EmulatedDevice::makeHostWord() { return std::make_shared<HostWord>(); }

EmulatedStatistics EmulatedDevice::statistics() const {
  auto const sleeps = sleeps_.load();
  auto const overshoot = sleeps ? 1e-9 * static_cast<double>(overshootNs_.load()) / static_cast<double>(sleeps) : 0.0;
  return {kernels_.load(), maxConcurrentKernels_.load(), queues_.load(), overshoot};
}

void EmulatedDevice::sleepTallied(double seconds) {
  if (!(seconds > 0)) return;
  auto const began = std::chrono::steady_clock::now();
  sleepFor(seconds);
  auto const took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  overshootNs_.fetch_add(static_cast<std::int64_t>(1e9 * (took - seconds)), std::memory_order_relaxed);
  sleeps_.fetch_add(1, std::memory_order_relaxed);
}

void EmulatedDevice::runKernel(Kernel const& kernel) {
  kernelSlots_.acquire();
  raiseTo(maxConcurrentKernels_, runningKernels_.fetch_add(1, std::memory_order_relaxed) + 1);
  sleepTallied(kernel.seconds);
  std::uint64_t digest = kernel.seed;
  for (auto const& input : kernel.inputs) digest = mix(digest, emulated(*input).word.load(std::memory_order_relaxed));
  runningKernels_.fetch_sub(1, std::memory_order_relaxed);
  kernelSlots_.release();
  kernels_.fetch_add(1, std::memory_order_relaxed);
  if (kernel.fault) throw Exception(*kernel.fault);
  emulated(*kernel.output).word.store(digest, std::memory_order_relaxed);
}

void EmulatedDevice::copy(std::size_t bytes, bool toDevice) {
  auto& engine = toDevice ? hostToDeviceEngine_ : deviceToHostEngine_;
  double const bandwidth = toDevice ? config_.hostToDeviceBytesPerS : config_.deviceToHostBytesPerS;
  std::lock_guard busy(engine);
  sleepTallied(static_cast<double>(bytes) / bandwidth);
}

void EmulatedDevice::launchOverhead() const { mimicry::burnCpu(config_.launchOverheadS); }

}  // namespace lanes::accel
