// Queue assignment for chains and branches, limits, and the race for a
// producer's queue.

#include "accel/QueueCache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "accel/Digest.h"
#include "accel/EmulatedDevice.h"

namespace lanes::accel {
namespace {

std::shared_ptr<EmulatedDevice> quickDevice() {
  EmulatedConfig config;
  config.launchOverheadS = 0;
  return std::make_shared<EmulatedDevice>(config);
}

// A device product made on `placement`'s queue by a kernel of `seconds`.
DeviceProduct produceOn(Device& device, Placement const& placement, std::uint64_t seed, double seconds,
                        std::vector<std::shared_ptr<DeviceBuffer const>> inputs = {}) {
  for (auto const& marker : placement.waits) placement.queue->waitFor(marker);
  auto output = device.allocate(8);
  placement.queue->launch({"k", seconds, std::move(inputs), output, seed});
  return DeviceProduct(output, placement.queue, placement.queue->record());
}

TEST(AccelQueueCacheTest, AChainStaysOnItsFirstQueue) {
  auto device = quickDevice();
  QueueCache cache(device, 0);
  auto first = cache.place({});
  EXPECT_TRUE(first.waits.empty());
  auto unpacked = produceOn(*device, first, 1, 0);
  auto second = cache.place({&unpacked});
  EXPECT_EQ(second.queue, first.queue);
  EXPECT_TRUE(second.waits.empty());
  EXPECT_EQ(cache.size(), 1u);
}

TEST(AccelQueueCacheTest, TheSecondConsumerOfABranchTakesANewQueueAndWaitsOnTheMarker) {
  auto device = quickDevice();
  QueueCache cache(device, 0);
  auto root = produceOn(*device, cache.place({}), 1, 5e-3);
  auto left = cache.place({&root});
  auto right = cache.place({&root});
  EXPECT_EQ(left.queue, root.queue());
  EXPECT_NE(right.queue, root.queue());
  ASSERT_EQ(right.waits.size(), 1u);
  EXPECT_EQ(right.waits.front(), root.marker());

  // Verified by the data: the right branch reads the root's output, written
  // by a slower kernel on another queue.
  auto branch = produceOn(*device, right, 2, 0, {root.buffer()});
  auto word = std::make_shared<HostWord>();
  branch.queue()->copyToHost(branch.buffer(), word);
  branch.queue()->record()->wait(HostWait::Block);
  EXPECT_EQ(word->value, mix(2, 1));
}

TEST(AccelQueueCacheTest, AQueueIsFreeAgainWhenItsLastLeaseGoes) {
  auto device = quickDevice();
  QueueCache cache(device, 0);
  Queue* first = nullptr;
  {
    auto placement = cache.place({});
    first = placement.queue.get();
  }
  EXPECT_EQ(cache.place({}).queue.get(), first);
  auto held = cache.place({});
  auto other = cache.place({});
  EXPECT_NE(other.queue, held.queue);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(AccelQueueCacheTest, AtItsLimitQueuesAreShared) {
  auto device = quickDevice();
  QueueCache cache(device, 2);
  std::vector<Placement> held;
  for (int i = 0; i < 6; ++i) held.push_back(cache.place({}));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(held[0].queue, held[1].queue);
}

TEST(AccelQueueCacheTest, ASingleQueueNeedsNoWaits) {
  auto device = quickDevice();
  QueueCache cache(device, 1);
  auto root = produceOn(*device, cache.place({}), 1, 0);
  auto left = cache.place({&root});
  auto right = cache.place({&root});
  EXPECT_EQ(left.queue, right.queue);
  EXPECT_TRUE(right.waits.empty());
}

TEST(AccelQueueCacheTest, ConsumersRacingForAQueueGetItOnce) {
  auto device = quickDevice();
  QueueCache cache(device, 0);
  for (int round = 0; round < 20; ++round) {
    auto root = produceOn(*device, cache.place({}), 1, 0);
    std::atomic<int> continuing{0};
    std::vector<std::thread> consumers;
    for (int i = 0; i < 4; ++i) {
      consumers.emplace_back([&] {
        auto placement = cache.place({&root});
        if (placement.queue == root.queue()) {
          ++continuing;
          EXPECT_TRUE(placement.waits.empty());
        } else {
          EXPECT_EQ(placement.waits.size(), 1u);
        }
      });
    }
    for (auto& consumer : consumers) consumer.join();
    EXPECT_EQ(continuing.load(), 1);
  }
}

}  // namespace
}  // namespace lanes::accel
