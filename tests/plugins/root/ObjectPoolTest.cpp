// The pool of reused objects behind the root and rntuple sources' object
// products: reuse, lifetime beyond its owner, and objects coming back from
// many threads while the reader takes and lends.

#include "root/ObjectPool.h"

#include <gtest/gtest.h>

#include <TClass.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace lanes::rootio::test {
namespace {

using Floats = std::vector<float>;

TClass* floatsClass() { return TClass::GetClass(typeid(Floats)); }

Floats& contentOf(void* object) { return *static_cast<Floats*>(object); }

TEST(ObjectPoolTest, AnObjectComesBackWithItsAllocationsOnceItsSlotLetsGo) {
  auto pool = ObjectPool::make(floatsClass());
  auto* object = pool->take();
  contentOf(object).assign(1000, 1.5f);
  auto* const buffer = contentOf(object).data();
  ProductSlot slot;
  pool->lend(object, 4000, slot);
  EXPECT_EQ(slot.type(), typeid(Floats));
  EXPECT_EQ(slot.bytes(), 4000u);
  EXPECT_EQ(static_cast<Floats const*>(slot.object())->size(), 1000u);

  auto* other = pool->take();
  EXPECT_NE(other, object) << "the lent object is still the slot's";
  pool->putBack(other);
  slot.reset();
  // The reader takes the object put back first, then the one the slot gave back.
  EXPECT_EQ(pool->take(), other);
  auto* again = pool->take();
  ASSERT_EQ(again, object);
  contentOf(again).assign(500, 2.f);
  EXPECT_EQ(contentOf(again).data(), buffer) << "its capacity was kept: no allocation";
  EXPECT_EQ(pool->made(), 2u);
  pool->putBack(again);
  pool->putBack(other);
}

// A lane's slots keep what the pool lent them for the lane's next event
// (ProductSlot::vacate): the reader reads the next product into it.
TEST(ObjectPoolTest, AVacatedSlotGivesItsObjectBackForItsNextProduct) {
  auto pool = ObjectPool::make(floatsClass());
  ProductSlot slot;
  EXPECT_EQ(pool->reclaim(slot), nullptr);
  auto* object = pool->take();
  pool->lend(object, 4, slot);
  slot.vacate();
  auto other = ObjectPool::make(floatsClass());
  EXPECT_EQ(other->reclaim(slot), nullptr) << "another pool's object is not reclaimed";
  EXPECT_EQ(pool->reclaim(slot), object);
  contentOf(object).assign(2, 3.f);
  pool->lend(object, 8, slot);
  EXPECT_EQ(static_cast<Floats const*>(slot.object()), object);
  slot.vacate();
  // A product of another pool gives the spare back to its own.
  auto* foreign = other->take();
  other->lend(foreign, 4, slot);
  EXPECT_EQ(pool->take(), object);
  EXPECT_EQ(pool->made(), 1u);
  pool->putBack(object);
  slot.reset();
}

// trade: lend and reclaim in one step, as a reader hands an event's product to its lane's slot.
TEST(ObjectPoolTest, TradeLendsAndGivesBackTheSlotsSpare) {
  auto pool = ObjectPool::make(floatsClass());
  ProductSlot slot;
  auto* first = pool->take();
  EXPECT_EQ(pool->trade(first, 4, slot), nullptr) << "a slot without a spare is lent to";
  EXPECT_EQ(slot.object(), first);
  slot.vacate();
  auto* second = pool->take();
  contentOf(second).assign(2, 5.f);
  EXPECT_EQ(pool->trade(second, 8, slot), first);
  EXPECT_EQ(*static_cast<Floats const*>(slot.object()), Floats(2, 5.f));
  EXPECT_EQ(slot.type(), typeid(Floats));
  EXPECT_EQ(pool->made(), 2u);
  pool->putBack(first);
  slot.reset();
}

TEST(ObjectPoolTest, ALentObjectOutlivesThePoolsOwner) {
  ProductSlot slot, vacated;
  {
    auto pool = ObjectPool::make(floatsClass());
    auto* object = pool->take();
    contentOf(object).assign(3, 7.f);
    pool->lend(object, 12, slot);
    pool->lend(pool->take(), 4, vacated);
    vacated.vacate();
    pool->putBack(pool->take());
  }  // the owner (a source, say, that a repeat cache read) is gone
  ASSERT_TRUE(slot.filled());
  EXPECT_EQ(*static_cast<Floats const*>(slot.object()), Floats(3, 7.f));
  vacated.reset();
  slot.reset();  // the last object back deletes the pool (ASan checks that nothing leaks or is used after)
}

TEST(ObjectPoolTest, ADiscardedObjectIsNeitherReusedNorDestroyed) {
  auto pool = ObjectPool::make(floatsClass());
  auto* object = pool->take();
  pool->discard(object);
  auto* next = pool->take();
  EXPECT_NE(next, object);
  pool->putBack(next);
  floatsClass()->Destructor(object);  // the test's to free: a real discard leaves a half-built object alone
}

// One reader takes, fills and lends objects; consumer threads check that
// each object still holds what it was lent with, then let it go, all while the
// reader goes on. In flight: at most kQueued queued plus one per consumer.
TEST(ObjectPoolTest, ObjectsComeBackFromManyThreadsWhileTheReaderLends) {
  constexpr int kEvents = 20000;
  constexpr std::size_t kQueued = 16;
  constexpr int kConsumers = 3;
  auto pool = ObjectPool::make(floatsClass());
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::pair<std::unique_ptr<ProductSlot>, float>> queue;
  bool done = false;
  std::atomic<int> wrong{0};
  std::vector<std::thread> consumers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.emplace_back([&] {
      for (;;) {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return done || !queue.empty(); });
        if (queue.empty()) return;
        auto [slot, value] = std::move(queue.front());
        queue.pop_front();
        lock.unlock();
        changed.notify_all();
        auto const& content = *static_cast<Floats const*>(slot->object());
        if (content.size() != 64 || content.front() != value || content.back() != value) ++wrong;
        slot->reset();
      }
    });
  }
  for (int e = 0; e < kEvents; ++e) {
    auto* object = pool->take();
    contentOf(object).assign(64, static_cast<float>(e));
    auto slot = std::make_unique<ProductSlot>();
    pool->lend(object, 256, *slot);
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return queue.size() < kQueued; });
    queue.emplace_back(std::move(slot), static_cast<float>(e));
    lock.unlock();
    changed.notify_all();
  }
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  changed.notify_all();
  for (auto& consumer : consumers) consumer.join();
  EXPECT_EQ(wrong.load(), 0) << "an object was reused while a slot still held it";
  EXPECT_LE(pool->made(), kQueued + kConsumers + 1);
}

// Lanes on threads of their own share one reader (a shared source, its reads
// serialised by a mutex here as by the source's queue): each vacates its
// slot, has the reader read into the object the slot kept, and checks it;
// every few events a lane lets go instead, so objects also come back through
// the pool while the others trade.
TEST(ObjectPoolTest, LanesTradeObjectsWithTheirSlotsWhileOthersGiveThemBack) {
  constexpr int kLanes = 4;
  constexpr int kEvents = 5000;
  auto pool = ObjectPool::make(floatsClass());
  std::mutex reader;
  std::atomic<int> wrong{0};
  std::vector<std::thread> lanes;
  for (int lane = 0; lane < kLanes; ++lane) {
    lanes.emplace_back([&, lane] {
      ProductSlot slot;
      for (int event = 0; event < kEvents; ++event) {
        event % 7 == 0 ? slot.reset() : slot.vacate();
        auto const value = static_cast<float>(lane * kEvents + event);
        {
          std::lock_guard lock(reader);
          auto* object = pool->reclaim(slot);
          if (!object) object = pool->take();
          contentOf(object).assign(16, value);
          pool->lend(object, 64, slot);
        }
        auto const& content = *static_cast<Floats const*>(slot.object());
        if (content.size() != 16 || content.front() != value || content.back() != value) ++wrong;
      }
    });
  }
  for (auto& lane : lanes) lane.join();
  EXPECT_EQ(wrong.load(), 0) << "an object was read into while another lane's slot held it";
  EXPECT_LE(pool->made(), 2u * kLanes) << "the lanes' own objects, and those coming back, are reused";
}

}  // namespace
}  // namespace lanes::rootio::test
