// The emulated device: queue order, markers between queues, kernel slots,
// sticky faults that reach markers and callbacks.

#include "accel/EmulatedDevice.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>
#include <vector>

#include "accel/Digest.h"
#include "lanes/core/Exception.h"

namespace lanes::accel {
namespace {

EmulatedConfig quickDevice(unsigned slots = 4) {
  EmulatedConfig config;
  config.kernelSlots = slots;
  config.launchOverheadS = 0;
  return config;
}

// Reads a buffer's digest back to the host, waiting for `queue`.
std::uint64_t readBack(Queue& queue, std::shared_ptr<DeviceBuffer const> buffer) {
  auto word = std::make_shared<HostWord>();
  queue.copyToHost(std::move(buffer), word);
  queue.record()->wait(HostWait::Block);
  return word->value;
}

TEST(AccelEmulatedDeviceTest, KernelsInOneQueueRunInOrder) {
  EmulatedDevice device(quickDevice());
  auto queue = device.makeQueue();
  auto first = device.allocate(8);
  auto second = device.allocate(8);
  // The slow first kernel must finish before the second reads its output.
  queue->launch({"first", 2e-3, {}, first, 7});
  queue->launch({"second", 0, {first}, second, 11});
  EXPECT_EQ(readBack(*queue, second), mix(11, 7));
}

TEST(AccelEmulatedDeviceTest, HostWordsGoThereAndBack) {
  EmulatedDevice device(quickDevice());
  auto queue = device.makeQueue();
  auto buffer = device.allocate(1000);
  queue->copyToDevice(std::make_shared<HostWord>(HostWord{42}), buffer);
  EXPECT_EQ(readBack(*queue, buffer), 42u);
}

TEST(AccelEmulatedDeviceTest, AQueueWaitingOnAMarkerRunsAfterIt) {
  EmulatedDevice device(quickDevice());
  auto producer = device.makeQueue();
  auto consumer = device.makeQueue();
  auto made = device.allocate(8);
  auto used = device.allocate(8);
  producer->launch({"producer", 5e-3, {}, made, 3});
  consumer->waitFor(producer->record());
  consumer->launch({"consumer", 0, {made}, used, 5});
  // Without the wait the consumer would read the producer's output unwritten (0).
  EXPECT_EQ(readBack(*consumer, used), mix(5, 3));
}

TEST(AccelEmulatedDeviceTest, AFaultReachesMarkersCallbacksAndWaitingQueues) {
  EmulatedDevice device(quickDevice());
  auto queue = device.makeQueue();
  auto other = device.makeQueue();
  auto output = device.allocate(8);
  queue->launch({"bad", 0, {}, output, 1, "the kernel of 'bad' faulted"});
  auto marker = queue->record();
  std::promise<std::exception_ptr> called;
  queue->onDone([&called](std::exception_ptr error) { called.set_value(error); });
  other->waitFor(marker);

  try {
    marker->wait(HostWait::Spin);
    ADD_FAILURE() << "the marker did not report the fault";
  } catch (Exception const& error) {
    EXPECT_EQ(error.message(), "the kernel of 'bad' faulted");
  }
  EXPECT_NE(called.get_future().get(), nullptr);
  EXPECT_THROW(other->record()->wait(HostWait::Block), Exception);
}

TEST(AccelEmulatedDeviceTest, NeverRunsMoreKernelsThanSlots) {
  unsigned const slots = 2;
  EmulatedDevice device(quickDevice(slots));
  std::vector<std::unique_ptr<Queue>> queues;
  for (int i = 0; i < 8; ++i) queues.push_back(device.makeQueue());
  // Enqueue from several threads at once, onto queues that all want to run.
  std::vector<std::thread> hosts;
  for (auto& queue : queues) {
    hosts.emplace_back([&device, &queue] {
      for (int k = 0; k < 5; ++k) queue->launch({"k", 2e-4, {}, device.allocate(8), 0});
    });
  }
  for (auto& host : hosts) host.join();
  for (auto& queue : queues) queue->record()->wait(HostWait::Block);
  auto const statistics = device.statistics();
  EXPECT_EQ(statistics.kernels, 40u);
  EXPECT_GE(statistics.maxConcurrentKernels, 1u);
  EXPECT_LE(statistics.maxConcurrentKernels, slots);
}

TEST(AccelEmulatedDeviceTest, RejectsBadOptions) {
  auto parse = [](char const* text) {
    auto spec = PluginSpec::parse(text);
    return EmulatedConfig::fromOptions(PluginOptions(spec.options, spec.name));
  };
  EXPECT_EQ(parse("emulated:slots=3,launch=1e-6").kernelSlots, 3u);
  EXPECT_THROW(parse("emulated:slots=0"), Exception);
  EXPECT_THROW(parse("emulated:h2d=0"), Exception);
  EXPECT_THROW(parse("emulated:launch=-1"), Exception);
}

}  // namespace
}  // namespace lanes::accel
