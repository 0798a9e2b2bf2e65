#pragma once
// The device interface the accelerator modules program against: in-order
// queues (CUDA streams), markers (CUDA events), host<->device copies,
// kernels and host callbacks. Two backends implement it: the emulated device
// (EmulatedDevice.h), which runs everywhere, and CUDA (CudaDevice.h), built
// only where the CUDA toolkit is found.
//
//   auto queue = device.makeQueue();
//   auto input = device.allocate(bytes);
//   auto word = device.makeHostWord();
//   queue->copyToDevice(word, input);                   // h2d
//   queue->launch({"tracks", 1e-3, {input}, output, seed});
//   auto marker = queue->record();                      // another queue may waitFor(marker)
//   queue->onDone([completion](std::exception_ptr e) { ... });  // host callback

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lanes::accel {

// How a host thread waits for the device. Spin polls, keeping a core busy
// (CUDA's default scheduling for a synchronising thread); Block sleeps until
// woken (an event created with cudaEventBlockingSync): slower to wake, but
// nearly free in CPU.
enum class HostWait { Spin, Block };

// Host memory that copies read from and write to: the 64-bit digest that
// stands for the data's content (Digest.h). Make it with
// Device::makeHostWord(), so that a CUDA copy reads or writes pinned memory
// and stays asynchronous. Externally synchronised by the
// queue order: the host writes it before enqueuing the copy that reads it,
// and reads it only after the marker or callback behind the copy that wrote it.
struct HostWord {
  std::uint64_t value = 0;
};

// Device memory of a given size. Its first word holds the digest; copies and
// kernels cost time in proportion to bytes(). Owned by shared_ptr: work in a
// queue keeps the buffers it uses alive.
class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  std::size_t bytes() const { return bytes_; }

 protected:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {}

 private:
  std::size_t bytes_;
};

// One kernel launch. The kernel runs for `seconds`, then writes
// digestOf(seed, input digests...) into `output` (Digest.h), so a result is
// right only if every input was written before the kernel ran.
struct Kernel {
  std::string name;  // the owning module's label, for messages
  double seconds = 0;
  std::vector<std::shared_ptr<DeviceBuffer const>> inputs;
  std::shared_ptr<DeviceBuffer> output;
  std::uint64_t seed = 0;
  // Fault injection: the kernel fails with this message instead of writing.
  std::optional<std::string> fault;
  // --trace (lanes/monitor/DeviceTrace.h): the flow from the host call that
  // launched it, and the one to the host call that takes its result (0: none).
  std::uint64_t flowIn = 0;
  std::uint64_t flowOut = 0;
};

// A point in a queue. Thread-safe: any thread may wait on it, any number of times.
class Marker {
 public:
  virtual ~Marker() = default;
  // Blocks the calling thread until the queue has done all work enqueued
  // before the marker; throws lanes::Exception if any of it failed.
  virtual void wait(HostWait how) const = 0;
};

// An in-order queue. Thread-safe: work may be enqueued from several threads
// at once (sync-single shares one queue between all lanes); each call costs
// the calling thread the backend's launch overhead. A failure is sticky, as
// a fault is for a CUDA context: the work after it in the queue is skipped,
// and every later marker and callback reports it, each as an exception of
// its own (the framework adds context to the one it is given).
class Queue {
 public:
  virtual ~Queue() = default;
  virtual void copyToDevice(std::shared_ptr<HostWord const> from, std::shared_ptr<DeviceBuffer> to) = 0;
  virtual void copyToHost(std::shared_ptr<DeviceBuffer const> from, std::shared_ptr<HostWord> to) = 0;
  virtual void launch(Kernel kernel) = 0;
  virtual std::shared_ptr<Marker const> record() = 0;
  // The work enqueued after this starts only once `marker` is reached (and
  // inherits a failure before it).
  virtual void waitFor(std::shared_ptr<Marker const> marker) = 0;
  // Calls `callback` on a device thread once the work enqueued so far is
  // done, with the failure if there was one. Keep it short: like a CUDA
  // host callback it holds up the queue while it runs.
  virtual void onDone(std::function<void(std::exception_ptr)> callback) = 0;
};

// Thread-safe.
class Device {
 public:
  virtual ~Device() = default;
  virtual std::unique_ptr<Queue> makeQueue() = 0;
  virtual std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes) = 0;
  // Host memory for copies (pinned where the backend needs it), holding 0.
  virtual std::shared_ptr<HostWord> makeHostWord() = 0;
};

}  // namespace lanes::accel
