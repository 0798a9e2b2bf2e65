#include "accel/CudaDevice.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <limits>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "accel/CudaCheck.h"
#include "accel/CudaTrace.h"
#include "accel/Digest.h"
#include "lanes/core/Exception.h"

namespace lanes::accel {
namespace {

// A kernel reads its inputs' addresses from its parameters, which have a fixed size.
constexpr std::size_t kMaxInputs = 32;

struct KernelArgs {
  long long cycles;
  std::uint64_t seed;
  std::uint64_t const* inputs[kMaxInputs];
  unsigned inputCount;
  std::uint64_t* output;
  std::uint64_t fault;           // 0, or the failure to raise instead of writing
  std::uint64_t* queueFailure;   // the queue's sticky failure (pinned host memory)
};

// One thread: the kernel stands for device work of a given duration, not for
// parallel computation. Like the emulated kernel it takes its time even when
// it fails.
__global__ void spinAndDigest(KernelArgs args) {
  volatile std::uint64_t* failure = args.queueFailure;
  if (*failure != 0) return;  // a failure earlier in the queue skips the work after it
  long long const start = clock64();
  while (clock64() - start < args.cycles) {
  }
  std::uint64_t digest = args.seed;
  for (unsigned i = 0; i < args.inputCount; ++i) digest = mix(digest, *args.inputs[i]);
  if (args.fault != 0) {
    *failure = args.fault;
    return;
  }
  *args.output = digest;
}

// Passes a failure on in stream order: into a marker's snapshot when it is
// recorded, into a queue when it waits for another queue's marker.
__global__ void carryFailure(std::uint64_t const* from, std::uint64_t* to) {
  volatile std::uint64_t* target = to;
  if (*target == 0) *target = *static_cast<volatile std::uint64_t const*>(from);
}

void checkLaunch(std::string const& kernel) { check(cudaGetLastError(), "launching " + kernel); }

// What the host sees of a word the device wrote, once the stream work that
// wrote it is known to be done.
std::uint64_t readWord(std::uint64_t const& word) { return *static_cast<volatile std::uint64_t const*>(&word); }

// Thread-safe. Pinned host words, allocated in chunks and recycled: the
// sticky failure of each queue, the failure snapshot of each marker, the
// host words of copies. The device reaches them at their host address
// (unified addressing). Words go back with a plain push, so their owners
// may drop them anywhere, on a stream callback's thread included.
class PinnedWords {
 public:
  ~PinnedWords() {
    for (void* chunk : chunks_) cudaFreeHost(chunk);
  }

  std::uint64_t* take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) grow();
    auto* word = free_.back();
    free_.pop_back();
    *word = 0;
    return word;
  }

  void give(std::uint64_t* word) {
    std::lock_guard lock(mutex_);
    free_.push_back(word);
  }

 private:
  static constexpr std::size_t kChunkWords = 512;

  void grow() {
    void* chunk = nullptr;
    check(cudaHostAlloc(&chunk, kChunkWords * sizeof(std::uint64_t), cudaHostAllocMapped | cudaHostAllocPortable),
          "cudaHostAlloc of pinned words");
    chunks_.push_back(chunk);
    auto* words = static_cast<std::uint64_t*>(chunk);
    for (std::size_t i = 0; i < kChunkWords; ++i) free_.push_back(words + i);
  }

  std::mutex mutex_;
  std::vector<void*> chunks_;
  std::vector<std::uint64_t*> free_;
};

// Thread-safe: what the device's queues, buffers and markers share.
// CUDA calls are not allowed on a stream callback's thread, where the last
// owner of a buffer or marker may drop it, so releases are deferred to the
// next allocate() (a host thread of the job) or to the end.
class DeviceState {
 public:
  DeviceState() {
    int count = 0;
    auto const status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
      throw Exception(std::string("accelerator backend 'cuda' found no CUDA device (") +
                      (status == cudaSuccess ? "none present" : cudaGetErrorString(status)) + ")");
    }
    int unified = 0;
    check(cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, 0), "cudaDeviceGetAttribute");
    if (!unified) throw Exception("accelerator backend 'cuda' needs a device with unified addressing");
    int kiloHertz = 0;
    check(cudaDeviceGetAttribute(&kiloHertz, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute(clock rate)");
    cyclesPerSecond_ = 1e3 * kiloHertz;
    // Freed buffers stay in the pool for the next allocation, as a caching
    // allocator keeps them: giving memory back to the driver synchronises.
    cudaMemPool_t pool = nullptr;
    check(cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
    std::uint64_t keepAll = std::numeric_limits<std::uint64_t>::max();
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll), "cudaMemPoolSetAttribute");
    check(cudaStreamCreateWithFlags(&allocations_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }

  ~DeviceState() {
    payload_.reset();
    drain();
    cudaStreamDestroy(allocations_);
  }

  long long cycles(double seconds) const { return std::llround(seconds * cyclesPerSecond_); }

  // A new queue's track in the trace: "device queue N".
  unsigned newQueue() { return queues_.fetch_add(1, std::memory_order_relaxed); }

  // Device memory for `bytes` (at least the digest word), usable by any queue.
  std::uint64_t* allocate(std::size_t bytes) {
    drain();
    void* memory = nullptr;
    check(cudaMallocAsync(&memory, std::max(bytes, sizeof(std::uint64_t)), allocations_), "cudaMallocAsync");
    // Other queues use it next: the allocation must be done, not just ordered.
    check(cudaStreamSynchronize(allocations_), "cudaStreamSynchronize after cudaMallocAsync");
    return static_cast<std::uint64_t*>(memory);
  }

  // Called once no queue's work uses `memory` any more.
  void free(void* memory) {
    defer([this, memory] { cudaFreeAsync(memory, allocations_); });
  }

  void destroy(cudaEvent_t event) {
    defer([event] { cudaEventDestroy(event); });
  }

  std::shared_ptr<std::uint64_t> word(std::shared_ptr<DeviceState> const& self) {
    return {words_.take(), [self](std::uint64_t* word) { self->words_.give(word); }};
  }

  // Pinned host memory of at least `bytes` that copies move the rest of a
  // buffer from or to: only its size matters, its content is never looked
  // at, so all copies share it. Copies in flight keep an outgrown one alive.
  std::shared_ptr<void> payload(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    if (payloadBytes_ < bytes) {
      payloadBytes_ = std::max(bytes, 2 * payloadBytes_);
      void* memory = nullptr;
      check(cudaHostAlloc(&memory, payloadBytes_, cudaHostAllocPortable), "cudaHostAlloc of the copy payload");
      payload_ = std::shared_ptr<void>(memory, [this](void* outgrown) { defer([outgrown] { cudaFreeHost(outgrown); }); });
    }
    return payload_;
  }

  // Failures are numbered from 1 (0 in a failure word: none).
  std::uint64_t failure(std::string message) {
    std::lock_guard lock(mutex_);
    failures_.push_back(std::move(message));
    return failures_.size();
  }

  // A new exception for each report: the framework adds context to the one it is given.
  std::exception_ptr report(std::uint64_t failure) const {
    if (failure == 0) return nullptr;
    std::lock_guard lock(mutex_);
    return std::make_exception_ptr(Exception(failures_.at(failure - 1)));
  }

 private:
  void defer(std::function<void()> release) {
    std::lock_guard lock(mutex_);
    deferred_.push_back(std::move(release));
  }

  void drain() {
    std::vector<std::function<void()>> releases;
    {
      std::lock_guard lock(mutex_);
      releases.swap(deferred_);
    }
    for (auto& release : releases) release();
  }

  double cyclesPerSecond_ = 0;
  std::atomic<unsigned> queues_{0};
  cudaStream_t allocations_ = nullptr;
  PinnedWords words_;
  mutable std::mutex mutex_;  // guards the members below
  std::vector<std::function<void()>> deferred_;
  std::vector<std::string> failures_;
  std::shared_ptr<void> payload_;
  std::size_t payloadBytes_ = 0;
};

class CudaBuffer : public DeviceBuffer {
 public:
  CudaBuffer(std::shared_ptr<DeviceState> state, std::size_t bytes)
      : DeviceBuffer(bytes), state_(std::move(state)), data_(state_->allocate(bytes)) {}
  ~CudaBuffer() override { state_->free(data_); }

  std::uint64_t* data() const { return data_; }

 private:
  std::shared_ptr<DeviceState> state_;
  std::uint64_t* data_;
};

std::uint64_t* dataOf(DeviceBuffer const& buffer) { return static_cast<CudaBuffer const&>(buffer).data(); }

// Thread-safe: any thread may wait, any number of times.
class CudaMarker : public Marker {
 public:
  CudaMarker(std::shared_ptr<DeviceState> state, std::shared_ptr<std::uint64_t> failure)
      : state_(std::move(state)), failure_(std::move(failure)) {
    check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming | cudaEventBlockingSync), "cudaEventCreateWithFlags");
  }
  ~CudaMarker() override { state_->destroy(event_); }

  void wait(HostWait how) const override {
    if (how == HostWait::Spin) {
      cudaError_t status;
      while ((status = cudaEventQuery(event_)) == cudaErrorNotReady) std::this_thread::yield();
      check(status, "waiting for a marker");
    } else {
      check(cudaEventSynchronize(event_), "waiting for a marker");
    }
    if (sightings_) sightings_->seen(traced_, Clock::now());
    if (auto error = state_->report(readWord(*failure_))) std::rethrow_exception(error);
  }

  cudaEvent_t event() const { return event_; }
  std::uint64_t* failure() const { return failure_.get(); }

  // --trace: a waiter that sees the marker reached notes the queue's first `traced` pieces of work done.
  void notes(std::shared_ptr<Sightings> sightings, std::uint64_t traced) {
    sightings_ = std::move(sightings);
    traced_ = traced;
  }

 private:
  std::shared_ptr<DeviceState> state_;
  std::shared_ptr<std::uint64_t> failure_;  // the queue's failure when the marker was reached
  cudaEvent_t event_ = nullptr;
  std::shared_ptr<Sightings> sightings_;  // none when not traced
  std::uint64_t traced_ = 0;
};

// A host callback in flight; the callback thread deletes it.
struct PendingCallback {
  std::function<void(std::exception_ptr)> callback;
  std::shared_ptr<std::uint64_t> queueFailure;
  std::shared_ptr<DeviceState> state;
  std::shared_ptr<Sightings> sightings;  // --trace: notes the queue's first `traced` pieces of work done
  std::uint64_t traced = 0;

  // cudaStreamAddCallback rather than cudaLaunchHostFunc: after a device
  // error the latter never calls its function, and the module waiting for it
  // would never complete; this one is called with the error.
  static void CUDART_CB run(cudaStream_t, cudaError_t status, void* data) {
    std::unique_ptr<PendingCallback> pending(static_cast<PendingCallback*>(data));
    if (pending->sightings) pending->sightings->seen(pending->traced, Clock::now());
    auto failure = status != cudaSuccess
                       ? std::make_exception_ptr(Exception(std::string("CUDA: device error: ") + cudaGetErrorString(status)))
                       : pending->state->report(readWord(*pending->queueFailure));
    pending->callback(failure);
  }
};

// Thread-safe: CUDA streams accept work from any thread; a mutex keeps each
// operation's few calls together and guards the list of what the queue's
// work in flight uses. That list is kept until a later marker is reached
// (it is checked at each enqueue), so buffers and host words outlive the
// work that reads them; so is the traced work done (CudaTrace.h). The
// destructor waits for the work enqueued.
class CudaQueue : public Queue {
 public:
  explicit CudaQueue(std::shared_ptr<DeviceState> state)
      : state_(std::move(state)), failure_(state_->word(state_)), stream_(newStream()), trace_(stream_, state_->newQueue()) {}

  ~CudaQueue() override {
    // A failure in this work was reported to its markers and callbacks already.
    cudaStreamSynchronize(stream_);
    trace_.record(true);
    cudaStreamDestroy(stream_);
  }

  void copyToDevice(std::shared_ptr<HostWord const> from, std::shared_ptr<DeviceBuffer> to) override {
    auto payload = to->bytes() > sizeof(std::uint64_t) ? state_->payload(to->bytes()) : nullptr;
    std::lock_guard lock(mutex_);
    releaseFinished();
    auto piece = trace_.begin("copy to device");
    check(cudaMemcpyAsync(dataOf(*to), &from->value, sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync host->device");
    if (payload) {
      check(cudaMemcpyAsync(dataOf(*to) + 1, payload.get(), to->bytes() - sizeof(std::uint64_t), cudaMemcpyHostToDevice,
                            stream_),
            "cudaMemcpyAsync host->device");
    }
    trace_.end(std::move(piece));
    keep({std::move(from), std::move(to), std::move(payload)});
  }

  void copyToHost(std::shared_ptr<DeviceBuffer const> from, std::shared_ptr<HostWord> to) override {
    auto payload = from->bytes() > sizeof(std::uint64_t) ? state_->payload(from->bytes()) : nullptr;
    std::lock_guard lock(mutex_);
    releaseFinished();
    auto piece = trace_.begin("copy to host");
    check(cudaMemcpyAsync(&to->value, dataOf(*from), sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync device->host");
    if (payload) {
      check(cudaMemcpyAsync(payload.get(), dataOf(*from) + 1, from->bytes() - sizeof(std::uint64_t),
                            cudaMemcpyDeviceToHost, stream_),
            "cudaMemcpyAsync device->host");
    }
    trace_.end(std::move(piece));
    keep({std::move(from), std::move(to), std::move(payload)});
  }

  void launch(Kernel kernel) override {
    if (kernel.inputs.size() > kMaxInputs) {
      throw Exception("the CUDA kernel of module '" + kernel.name + "' has " + std::to_string(kernel.inputs.size()) +
                      " inputs; it takes at most " + std::to_string(kMaxInputs));
    }
    KernelArgs args{};
    args.cycles = state_->cycles(kernel.seconds);
    args.seed = kernel.seed;
    for (auto const& input : kernel.inputs) args.inputs[args.inputCount++] = dataOf(*input);
    args.output = dataOf(*kernel.output);
    args.fault = kernel.fault ? state_->failure(*kernel.fault) : 0;
    args.queueFailure = failure_.get();
    std::lock_guard lock(mutex_);
    releaseFinished();
    auto piece = trace_.begin(kernel.name, kernel.flowIn, kernel.flowOut);
    spinAndDigest<<<1, 1, 0, stream_>>>(args);
    checkLaunch("the kernel of module '" + kernel.name + "'");
    trace_.end(std::move(piece));
    for (auto& input : kernel.inputs) keep({std::move(input)});
    keep({std::move(kernel.output)});
  }

  std::shared_ptr<Marker const> record() override {
    auto marker = std::make_shared<CudaMarker>(state_, state_->word(state_));
    std::lock_guard lock(mutex_);
    releaseFinished();
    if (trace_.ended()) marker->notes(trace_.sightings(), trace_.ended());
    carryFailure<<<1, 1, 0, stream_>>>(failure_.get(), marker->failure());
    checkLaunch("the failure snapshot of a marker");
    check(cudaEventRecord(marker->event(), stream_), "cudaEventRecord");
    finished_.push_back({marker, std::exchange(inFlight_, {})});
    return marker;
  }

  void waitFor(std::shared_ptr<Marker const> marker) override {
    auto const& reached = static_cast<CudaMarker const&>(*marker);
    std::lock_guard lock(mutex_);
    releaseFinished();
    check(cudaStreamWaitEvent(stream_, reached.event(), 0), "cudaStreamWaitEvent");
    carryFailure<<<1, 1, 0, stream_>>>(reached.failure(), failure_.get());
    checkLaunch("the failure hand-over of a marker");
    keep({std::move(marker)});
  }

  void onDone(std::function<void(std::exception_ptr)> callback) override {
    auto pending = std::make_unique<PendingCallback>(PendingCallback{std::move(callback), failure_, state_, nullptr, 0});
    std::lock_guard lock(mutex_);
    releaseFinished();
    if (trace_.ended()) {
      pending->sightings = trace_.sightings();
      pending->traced = trace_.ended();
    }
    check(cudaStreamAddCallback(stream_, &PendingCallback::run, pending.get(), 0), "cudaStreamAddCallback");
    pending.release();  // the callback deletes it
  }

 private:
  // What the work up to a marker uses, kept until the marker is reached.
  struct Batch {
    std::shared_ptr<CudaMarker const> marker;
    std::vector<std::shared_ptr<void const>> uses;
  };

  void keep(std::initializer_list<std::shared_ptr<void const>> uses) {
    for (auto const& use : uses) {
      if (use) inFlight_.push_back(use);
    }
  }

  // Drops what reached markers kept. A device error counts as reached: the
  // work will not run, and the error reaches the markers' waiters.
  void releaseFinished() {
    while (!finished_.empty() && cudaEventQuery(finished_.front().marker->event()) != cudaErrorNotReady) {
      finished_.pop_front();
    }
    trace_.recordDone();
  }

  static cudaStream_t newStream() {
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return stream;
  }

  std::shared_ptr<DeviceState> state_;
  std::shared_ptr<std::uint64_t> failure_;  // the sticky failure; written by the device
  cudaStream_t stream_;
  CudaTrace trace_;   // the work on the stream for --trace; under mutex_ but for what CudaTrace.h says
  std::mutex mutex_;  // guards the two members below
  std::vector<std::shared_ptr<void const>> inFlight_;
  std::deque<Batch> finished_;  // in the order of their markers
};

// Thread-safe: each call works on the shared state or makes a new object.
class CudaDevice : public Device {
 public:
  std::unique_ptr<Queue> makeQueue() override { return std::make_unique<CudaQueue>(state_); }

  std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes) override {
    return std::make_shared<CudaBuffer>(state_, bytes);
  }

  std::shared_ptr<HostWord> makeHostWord() override {
    auto word = state_->word(state_);
    auto* host = new (word.get()) HostWord{};  // a trivial type in the pinned word
    return {std::move(word), host};
  }

 private:
  std::shared_ptr<DeviceState> state_ = std::make_shared<DeviceState>();
};

}  // namespace

std::unique_ptr<Device> makeCudaDevice() { return std::make_unique<CudaDevice>(); }

}  // namespace lanes::accel
