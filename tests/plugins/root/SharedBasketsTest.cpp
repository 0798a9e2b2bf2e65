#include "root/SharedBaskets.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace lanes::rootio {
namespace {

using Key = SharedBaskets::Key;

// A basket whose bytes tell which key it was made for.
SharedBaskets::Held basketOf(Key const& key) {
  auto basket = std::make_shared<UnzippedBasket>();
  basket->bytes.assign(64, static_cast<char>(key.file * 16 + key.product * 4 + static_cast<std::size_t>(key.basket)));
  basket->first = key.basket * 100;
  basket->end = basket->first + 100;
  return basket;
}

// A basket of one lane's run only (runs 1) is found while a lane holds it.
TEST(SharedBasketsTest, ABasketHeldByOneLaneIsFoundByTheNext) {
  SharedBaskets baskets;
  Key const key{0, 3, 7};
  int makes = 0;
  auto const make = [&] { ++makes; return basketOf(key); };
  auto first = baskets.find(key, 1, make);
  auto second = baskets.find(key, 1, make);
  EXPECT_EQ(first, second);
  EXPECT_EQ(makes, 1);
  EXPECT_EQ(baskets.made(), 1u);
  EXPECT_EQ(baskets.reused(), 1u);
  auto other = baskets.find({1, 3, 7}, 1, [&] { ++makes; return basketOf({1, 3, 7}); });
  EXPECT_NE(other, first) << "another file's basket of the same number";
  EXPECT_EQ(makes, 2);
  baskets.release(key, first);
  EXPECT_FALSE(first);
  auto third = baskets.find(key, 1, make);
  EXPECT_EQ(third, second) << "still held by the second lane";
  baskets.release(key, second);
  baskets.release(key, third);
  auto again = baskets.find(key, 1, make);
  EXPECT_EQ(makes, 3) << "no lane held it: made again";
  baskets.release(key, again);
  baskets.release(key, again);  // nothing held: nothing to do
}

TEST(SharedBasketsTest, ABasketNotMadeIsTriedAgainByTheNextLane) {
  SharedBaskets baskets;
  Key const key{0, 0, 0};
  EXPECT_FALSE(baskets.find(key, 1, [] { return SharedBaskets::Held{}; })) << "unfit for sharing";
  EXPECT_THROW(baskets.find(key, 1, []() -> SharedBaskets::Held { throw std::runtime_error("damaged"); }),
               std::runtime_error);
  auto held = baskets.find(key, 1, [&] { return basketOf(key); });
  ASSERT_TRUE(held);
  EXPECT_EQ(baskets.made(), 1u);
  EXPECT_EQ(baskets.reused(), 0u);
}

// A basket of 3 runs is kept, held or not, until the lanes of the 2 other runs found it.
TEST(SharedBasketsTest, ABasketIsKeptUntilTheLanesOfItsRunsCame) {
  SharedBaskets baskets;
  Key const key{0, 1, 2};
  int makes = 0;
  auto const make = [&] { ++makes; return basketOf(key); };
  auto held = baskets.find(key, 3, make);
  baskets.release(key, held);
  for (int lane = 0; lane < 2; ++lane) {
    held = baskets.find(key, 3, make);
    baskets.release(key, held);
  }
  EXPECT_EQ(makes, 1);
  EXPECT_EQ(baskets.reused(), 2u);
  held = baskets.find(key, 3, make);
  EXPECT_EQ(makes, 2) << "every run's lane came: no longer kept";
}

// Beyond the limit the oldest kept basket goes first.
TEST(SharedBasketsTest, TheOldestKeptBasketGoesBeyondTheLimit) {
  SharedBaskets baskets(150);  // two baskets of 64 bytes
  int makes = 0;
  auto const makeAndLetGo = [&](Key const& key) {
    auto held = baskets.find(key, 2, [&] { ++makes; return basketOf(key); });
    baskets.release(key, held);
  };
  makeAndLetGo({0, 0, 0});
  makeAndLetGo({0, 0, 1});
  makeAndLetGo({0, 0, 2});
  EXPECT_EQ(makes, 3);
  makeAndLetGo({0, 0, 1});
  makeAndLetGo({0, 0, 2});
  EXPECT_EQ(makes, 3) << "the two newest kept";
  makeAndLetGo({0, 0, 0});
  EXPECT_EQ(makes, 4) << "the oldest was let go";
}

// A lane that wants a basket while another lane is making it waits for that
// one, holding no lock: meanwhile a third finds other baskets, and the
// one made for the first lane is the one the second gets.
TEST(SharedBasketsTest, ALaneWaitsForABasketBeingMadeAndNoOtherLaneDoes) {
  SharedBaskets baskets;
  Key const key{0, 2, 5}, other{1, 2, 5};
  std::atomic<bool> making{false}, othersFound{false}, secondDone{false};
  SharedBaskets::Held first, second;
  std::thread maker([&] {
    first = baskets.find(key, 1, [&] {
      making = true;
      while (!othersFound) std::this_thread::yield();  // until the other lanes asked
      EXPECT_FALSE(secondDone) << "the second lane did not wait";
      return basketOf(key);
    });
  });
  while (!making) std::this_thread::yield();
  std::thread waiter([&] {
    second = baskets.find(key, 1, [&] { return basketOf(key); });
    secondDone = true;
  });
  auto found = baskets.find(other, 1, [&] { return basketOf(other); });  // not held up by the basket being made
  EXPECT_EQ(found->first, other.basket * 100);
  othersFound = true;
  maker.join();
  waiter.join();
  ASSERT_TRUE(first);
  EXPECT_EQ(second, first);
  EXPECT_EQ(baskets.made(), 2u);
  EXPECT_EQ(baskets.reused(), 1u);
  EXPECT_LE(baskets.waitedFor(), 1u);  // 0 if the second lane came only after the basket was made
}

// A lane whose making failed (threw) leaves the basket to the next lane.
TEST(SharedBasketsTest, ABasketWhoseMakingFailedIsMadeByTheNextLane) {
  SharedBaskets baskets;
  Key const key{0, 2, 6};
  EXPECT_THROW(baskets.find(key, 2, []() -> SharedBaskets::Held { throw std::runtime_error("damaged"); }),
               std::runtime_error);
  EXPECT_TRUE(baskets.find(key, 2, [&] { return basketOf(key); })) << "no longer marked as being made";
  EXPECT_EQ(baskets.made(), 1u);
}

// Lanes find, keep and let go of a few baskets at once: each gets the basket
// of its key, whole, and every find either made a basket or found one.
TEST(SharedBasketsTest, LanesFindAndLetGoAtOnce) {
  SharedBaskets baskets(4 * 64);  // room for 4 of the 6 baskets: some are let go to make room
  constexpr int kThreads = 8, kRounds = 2000;
  std::atomic<int> wrong{0};
  std::vector<std::thread> lanes;
  for (int t = 0; t < kThreads; ++t) {
    lanes.emplace_back([&, t] {
      std::vector<std::pair<Key, SharedBaskets::Held>> holding;
      for (int round = 0; round < kRounds; ++round) {
        Key const key{static_cast<std::size_t>(round % 2), static_cast<std::size_t>((round + t) % 3), round % 2};
        auto held = baskets.find(key, 1 + round % 3, [&] { return basketOf(key); });
        if (held->bytes != basketOf(key)->bytes || held->first != key.basket * 100) wrong.fetch_add(1);
        holding.emplace_back(key, std::move(held));
        if (holding.size() > 2) {  // a lane holds a basket or two while it reads on
          baskets.release(holding.front().first, holding.front().second);
          holding.erase(holding.begin());
        }
      }
      for (auto& [key, held] : holding) baskets.release(key, held);
    });
  }
  for (auto& lane : lanes) lane.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(baskets.made() + baskets.reused(), static_cast<std::uint64_t>(kThreads) * kRounds);
  EXPECT_GE(baskets.made(), 6u);
}

}  // namespace
}  // namespace lanes::rootio
