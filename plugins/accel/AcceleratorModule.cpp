#include "accel/AcceleratorModule.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "lanes/core/Event.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/monitor/DeviceTrace.h"
#include "mimicry/BusyWork.h"

namespace lanes::accel {
namespace {

std::pair<std::string, std::size_t> theOneProduct(PluginOptions const& options) {
  auto const products = options.sizes("produces.");
  if (products.size() != 1) options.fail("produces", "give exactly one produces.<label>=BYTES");
  return products.front();
}

std::optional<std::uint64_t> readFailAt(PluginOptions const& options) {
  if (!options.raw().has("fail-at")) return std::nullopt;
  return options.positive("fail-at", 1);
}

std::shared_ptr<Accelerator> acceleratorIfAny() {
  return settings().backend == Backend::None ? nullptr : Accelerator::shared();
}

}  // namespace

AcceleratorModule::AcceleratorModule(std::string label, Options const& options)
    : AcceleratorModule(std::move(label), PluginOptions(options, "accel")) {}

AcceleratorModule::AcceleratorModule(std::string label, PluginOptions const& options)
    : ExternalProducer(std::move(label)),
      time_(options.nonNegative("time", 0)),
      scale_(options.nonNegative("scale", 0)),
      speedup_(options.nonNegative("speedup", 10)),
      toHost_(options.raw().getBool("to-host", false)),
      failAt_(readFailAt(options)),
      accelerator_(acceleratorIfAny()) {
  if (speedup_ <= 0) options.fail("speedup", "must be > 0");
  for (auto const& input : options.raw().getAll("consumes")) inputs_.push_back({input, consumesAny(input)});
  std::tie(outputLabel_, outputBytes_) = theOneProduct(options);
  // On the host (CPU, or copied back) the result is a Digest; left on the device, a DeviceProduct.
  if (accelerator_ && !toHost_) {
    deviceProduct_ = produces<DeviceProduct>(outputLabel_);
  } else {
    hostProduct_ = produces<Digest>(outputLabel_);
  }
}

void AcceleratorModule::beginJob(JobContext const& context) { inFlight_.resize(context.lanes); }

double AcceleratorModule::cpuSeconds(Event const& event) const {
  std::size_t bytes = 0;
  for (auto const& input : inputs_) bytes += event.size(input.token);
  return time_ + scale_ * static_cast<double>(bytes);
}

// A host product's digest: its own if an accelerator module made it, else
// one from its label and size (a mimicry product has no other content).
std::uint64_t AcceleratorModule::hostDigest(Event const& event, Input const& input) const {
  auto const& slot = event.slot(input.token.index());
  if (slot.type() == typeid(Digest)) return static_cast<Digest const*>(slot.object())->value;
  return mix(hashOf(input.label), slot.bytes());
}

std::uint64_t AcceleratorModule::seed(Event const& event) const { return mix(hashOf(label()), event.id().event); }

std::uint64_t AcceleratorModule::runOnCpu(Event const& event) const {
  mimicry::burnCpu(cpuSeconds(event));
  std::uint64_t digest = seed(event);
  for (auto const& input : inputs_) digest = mix(digest, hostDigest(event, input));
  return digest;
}

AcceleratorModule::InFlight AcceleratorModule::enqueue(Event const& event) const {
  auto& device = accelerator_->device();
  std::vector<DeviceProduct const*> onDevice;
  for (auto const& input : inputs_) {
    auto const& slot = event.slot(input.token.index());
    if (slot.type() == typeid(DeviceProduct)) onDevice.push_back(static_cast<DeviceProduct const*>(slot.object()));
  }
  auto placement = accelerator_->queues().place(onDevice);
  auto& queue = *placement.queue;
  queueWaits_.fetch_add(placement.waits.size(), std::memory_order_relaxed);
  for (auto& marker : placement.waits) queue.waitFor(std::move(marker));

  Kernel kernel{label(), cpuSeconds(event) / speedup_, {}, device.allocate(outputBytes_), seed(event), std::nullopt};
  for (auto const& input : inputs_) {
    auto const& slot = event.slot(input.token.index());
    if (slot.type() == typeid(DeviceProduct)) {
      kernel.inputs.push_back(static_cast<DeviceProduct const*>(slot.object())->buffer());
    } else {
      auto buffer = device.allocate(slot.bytes());
      auto word = device.makeHostWord();
      word->value = hostDigest(event, input);
      queue.copyToDevice(std::move(word), buffer);
      kernel.inputs.push_back(std::move(buffer));
      toDeviceBytes_.fetch_add(slot.bytes(), std::memory_order_relaxed);
      toDeviceCopies_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  deviceCalls_.fetch_add(1, std::memory_order_relaxed);
  kernelNanoseconds_.fetch_add(static_cast<std::uint64_t>(kernel.seconds * 1e9), std::memory_order_relaxed);
  if (failAt_ == event.id().event) {
    kernel.fault = "device fault injected in the kernel of module '" + label() + "' at event " + event.id().str();
  }
  // --trace: an arrow from this acquire() to the kernel, and one from the kernel to the produce() that waits for it.
  kernel.flowIn = deviceTrace::newFlow();
  deviceTrace::flowFromHere(kernel.flowIn);
  if (waitsForDevice()) kernel.flowOut = deviceTrace::newFlow();
  InFlight work{kernel.output, placement.queue, nullptr, nullptr, kernel.flowOut};
  queue.launch(std::move(kernel));
  if (toHost_) {
    work.hostResult = device.makeHostWord();
    queue.copyToHost(work.output, work.hostResult);
  }
  work.marker = queue.record();
  return work;
}

// Whether produce() runs only once the device work is done (else it hands on a
// device product that its consumers' queues wait for).
bool AcceleratorModule::waitsForDevice() const {
  auto const strategy = accelerator_->strategy();
  return toHost_ || strategy == Strategy::SyncSingle || strategy == Strategy::SyncMulti ||
         strategy == Strategy::ExternalWorker;
}

// The five strategies differ only here: how acquire() learns that the work is done.
void AcceleratorModule::complete(InFlight const& work, Completion completion) const {
  auto const signal = [completion](std::exception_ptr failure) {
    if (failure) {
      completion.fail(failure);
    } else {
      completion.done();
    }
  };
  switch (accelerator_->strategy()) {
    case Strategy::SyncSingle:
    case Strategy::SyncMulti:
      try {
        work.marker->wait(HostWait::Spin);  // blocks this worker thread: the strategy's definition
        signal(nullptr);
      } catch (...) {
        signal(std::current_exception());
      }
      return;
    case Strategy::ExternalWorker:
      work.queue->onDone(signal);
      return;
    case Strategy::ExternalWorkerD2H:
      // Work that stays on the device needs no wait: its consumers queue behind it.
      if (toHost_) return work.queue->onDone(signal);
      return signal(nullptr);
    case Strategy::WaitingPool:
      if (toHost_) return accelerator_->whenReached(work.marker, signal);
      return signal(nullptr);
  }
}

void AcceleratorModule::acquire(Event const& event, Completion completion) const {
  if (!accelerator_) return completion.done();  // the CPU implementation runs in produce()
  auto& work = inFlight_[event.lane()];
  work = enqueue(event);
  complete(work, std::move(completion));
}

void AcceleratorModule::produce(Event& event) const {
  if (!accelerator_) {
    auto const digest = runOnCpu(event);
    tally(digest);
    return event.put(hostProduct_, Digest{digest}, outputBytes_);
  }
  auto work = std::move(inFlight_[event.lane()]);
  inFlight_[event.lane()] = {};
  deviceTrace::flowToHere(work.flowOut);
  if (toHost_) {
    tally(work.hostResult->value);
    return event.put(hostProduct_, Digest{work.hostResult->value}, outputBytes_);
  }
  event.put(deviceProduct_, DeviceProduct(std::move(work.output), std::move(work.queue), std::move(work.marker)), outputBytes_);
}

void AcceleratorModule::tally(std::uint64_t digest) const {
  results_.fetch_add(1, std::memory_order_relaxed);
  resultSum_.fetch_add(digest, std::memory_order_relaxed);
}

// Host results only (CPU runs, or to-host): their count and the sum of their
// digests, which a job with the same events gives whatever the strategy. On
// a device, what a call enqueued on average: kernel seconds, copies to the
// device and their bytes, waits on other queues, the copy back.
std::string AcceleratorModule::details() const {
  nlohmann::json details = {{"backend", toString(accelerator_ ? accelerator_->backend() : Backend::None)}};
  if (accelerator_) {
    details["strategy"] = toString(accelerator_->strategy());
    auto const calls = static_cast<double>(std::max<std::uint64_t>(1, deviceCalls_.load()));
    details["device"] = {{"calls", deviceCalls_.load()},
                         {"kernel_s", 1e-9 * static_cast<double>(kernelNanoseconds_.load()) / calls},
                         {"copies_to_device", static_cast<double>(toDeviceCopies_.load()) / calls},
                         {"to_device_bytes", static_cast<double>(toDeviceBytes_.load()) / calls},
                         {"queue_waits", static_cast<double>(queueWaits_.load()) / calls},
                         {"to_host", toHost_},
                         {"to_host_bytes", toHost_ ? outputBytes_ : 0}};
    if (auto const* emulated = dynamic_cast<EmulatedDevice const*>(&accelerator_->device())) {
      details["device"]["sleep_overshoot_s"] = emulated->statistics().sleepOvershootS;
    }
  }
  if (hostProduct_.valid()) {
    details["results"] = results_.load();
    details["result_sum"] = resultSum_.load();
  }
  return details.dump();
}

namespace {
RegisterModule<AcceleratorModule> const registration(
    "accel",
    "an accelerator module (--accel selects the device, --accel-strategy how it completes): consumes=LABEL "
    "(repeatable), produces.<label>=BYTES (one), time=SECONDS + scale=SECONDS/BYTE of CPU, speedup=10 (the kernel "
    "takes 1/speedup of that), to-host=false (copy the result device->host), fail-at=K (the kernel of event K faults)");
}

}  // namespace lanes::accel
