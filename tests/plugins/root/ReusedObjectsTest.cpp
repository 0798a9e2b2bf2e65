// The objects behind the blob sources' object products (root-events, pds,
// hdf5): a chain reads each product into the object its previous event used
// once that event's slot let it go, leaves an object a slot still holds to
// that slot, outlives nothing it lent, and gives up an object a failed read
// may have left half-built; chains of many lanes, their objects coming back
// from other threads while they read.

#include "root/ReusedObjects.h"
#include "root/RootSupport.h"

#include <gtest/gtest.h>

#include <TClass.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace lanes::rootio::test {
namespace {

using Floats = std::vector<float>;

TClass* floatsClass() { return TClass::GetClass(typeid(Floats)); }

Floats& contentOf(void* object) { return *static_cast<Floats*>(object); }
Floats const& contentOf(ProductSlot const& slot) { return *static_cast<Floats const*>(slot.object()); }

// Reads `values` into `product` of `objects`, lent to `slot`; returns the object.
void* readInto(ReusedObjects& objects, std::size_t product, ProductSlot& slot, Floats const& values) {
  void* used = nullptr;
  objects.read(product, values.size() * sizeof(float), slot, [&](void* object) {
    contentOf(object) = values;
    used = object;
  });
  return used;
}

TEST(ReusedObjectsTest, TheNextEventReadsIntoTheObjectItsSlotLetGoWithItsAllocations) {
  ReusedObjects objects({floatsClass()});
  ProductSlot slot;
  auto* first = readInto(objects, 0, slot, Floats(1000, 1.5f));
  ASSERT_TRUE(slot.filled());
  EXPECT_EQ(slot.type(), typeid(Floats));
  EXPECT_EQ(slot.bytes(), 4000u);
  EXPECT_EQ(contentOf(slot), Floats(1000, 1.5f));
  auto const* buffer = contentOf(slot).data();
  slot.reset();
  objects.read(0, 2000, slot, [&](void* object) {
    EXPECT_EQ(object, first);
    EXPECT_EQ(contentOf(object).size(), 1000u) << "it holds the earlier event's product, to be replaced";
    contentOf(object).assign(500, 2.f);
    EXPECT_EQ(contentOf(object).data(), buffer) << "its capacity was kept: no allocation";
  });
  EXPECT_EQ(contentOf(slot), Floats(500, 2.f));
}

TEST(ReusedObjectsTest, ASlotVacatedForItsLanesNextEventTradesItsObjectBack) {
  // A lane vacates its slots as it starts its next event (ProductSlot::vacate): the slot keeps the object as its
  // spare, and the chain takes it back from that slot; it was renewed each event once, all allocations lost.
  ReusedObjects objects({floatsClass()});
  ProductSlot slot;
  auto* first = readInto(objects, 0, slot, Floats(1000, 1.5f));
  auto const* buffer = contentOf(slot).data();
  for (int event = 0; event < 3; ++event) {
    slot.vacate();
    ASSERT_FALSE(slot.filled());
    objects.read(0, 2000, slot, [&](void* object) {
      EXPECT_EQ(object, first);
      contentOf(object).assign(500, 2.f);
      EXPECT_EQ(contentOf(object).data(), buffer) << "its capacity was kept: no allocation";
    });
    EXPECT_EQ(slot.object(), first);
  }
  ProductSlot another;  // a vacated slot of another lane keeps its spare: the chain makes a new object
  readInto(objects, 0, another, {1});
  EXPECT_EQ(contentOf(slot), Floats(500, 2.f));
}

TEST(ReusedObjectsTest, AnObjectThatASlotStillHoldsIsLeftToIt) {
  ReusedObjects objects({floatsClass(), floatsClass()});
  ProductSlot kept, next, other;
  auto* held = readInto(objects, 0, kept, {1, 2, 3});  // a repeat cache keeps its slot
  readInto(objects, 1, other, {9});
  other.reset();
  EXPECT_NE(readInto(objects, 0, next, {4, 5}), held);
  EXPECT_EQ(contentOf(kept), Floats({1, 2, 3}));
  EXPECT_EQ(contentOf(next), Floats({4, 5}));
  kept.reset();
  next.reset();
  EXPECT_NE(readInto(objects, 0, next, {6}), held) << "the object left to the slot is no longer the chain's";
}

TEST(ReusedObjectsTest, ALentObjectOutlivesItsChain) {
  ProductSlot slot;
  {
    ReusedObjects objects({floatsClass()});
    readInto(objects, 0, slot, {7, 7, 7});
  }  // the chain (a source's, which a repeat cache read) is gone
  ASSERT_TRUE(slot.filled());
  EXPECT_EQ(contentOf(slot), Floats(3, 7.f));
  slot.reset();  // ASan checks that nothing is used after it is freed
}

TEST(ReusedObjectsTest, AFailedReadGivesItsObjectUpAndFillsNoSlot) {
  ReusedObjects objects({floatsClass()});
  ProductSlot slot;
  void* failed = nullptr;
  EXPECT_THROW(objects.read(0, 4, slot,
                            [&](void* object) {
                              failed = object;
                              throw std::runtime_error("damaged");
                            }),
               std::runtime_error);
  EXPECT_FALSE(slot.filled());
  EXPECT_NE(readInto(objects, 0, slot, {1}), failed);
  floatsClass()->Destructor(failed);  // the test's to free: a real failure may leave it half-built
}

// Lanes, each a chain reading kProducts products per event on two threads at
// once, hand their slots to consumer threads, which check that each object
// still holds what it was read with and let it go, while the lanes read on.
TEST(ReusedObjectsTest, ChainsReadWhileTheirObjectsComeBackFromOtherThreads) {
  constexpr int kLanes = 4, kEvents = 1000, kProducts = 8, kConsumers = 2;
  constexpr std::size_t kQueued = 16;
  // ROOT's type system is thread-safe only once enabled, as every job does
  // before its threads start; run alone, this test is the first to ask.
  initialiseRoot();
  auto* const floats = floatsClass();
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::pair<std::unique_ptr<ProductSlot[]>, float>> queue;
  int lanesLeft = kLanes;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&] {
      for (;;) {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return lanesLeft == 0 || !queue.empty(); });
        if (queue.empty()) return;
        auto [slots, value] = std::move(queue.front());
        queue.pop_front();
        lock.unlock();
        changed.notify_all();
        for (int p = 0; p < kProducts; ++p) {
          auto const& content = contentOf(slots[p]);
          if (content.size() != 16u + p || content.front() != value || content.back() != value + p) ++wrong;
        }
        slots.reset();
      }
    });
  }
  for (int lane = 0; lane < kLanes; ++lane) {
    threads.emplace_back([&, lane] {
      ReusedObjects objects(std::vector<TClass*>(kProducts, floats));
      for (int e = 0; e < kEvents; ++e) {
        auto slots = std::make_unique<ProductSlot[]>(kProducts);
        auto const value = static_cast<float>(e * kLanes + lane);
        auto const readHalf = [&](int from) {
          for (int p = from; p < kProducts; p += 2) {
            Floats values(16 + p, value);
            values.back() = value + p;
            readInto(objects, p, slots[p], values);
          }
        };
        std::thread other(readHalf, 1);  // the event's modules read on two threads
        readHalf(0);
        other.join();
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return queue.size() < kQueued; });
        queue.emplace_back(std::move(slots), value);
        lock.unlock();
        changed.notify_all();
      }
      std::lock_guard lock(mutex);
      --lanesLeft;
      changed.notify_all();
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0) << "an object was read into while a slot still held it";
}

}  // namespace
}  // namespace lanes::rootio::test
