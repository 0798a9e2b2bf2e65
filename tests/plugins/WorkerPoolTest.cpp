// The plain-thread pool behind `offload`.

#include "mimicry/WorkerPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <set>
#include <thread>

namespace lanes::mimicry {
namespace {

TEST(WorkerPoolTest, RunsEveryJobBeforeItIsDestroyed) {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(3);
    for (int i = 0; i < 1000; ++i) pool.submit([&ran] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 1000);
}

TEST(WorkerPoolTest, RunsJobsOnItsOwnThreads) {
  WorkerPool pool(2);
  std::promise<std::thread::id> where;
  auto future = where.get_future();
  pool.submit([&where] { where.set_value(std::this_thread::get_id()); });
  EXPECT_NE(future.get(), std::this_thread::get_id());
}

TEST(WorkerPoolTest, AcceptsJobsFromManyThreads) {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(2);
    std::vector<std::thread> submitters;
    for (int t = 0; t < 4; ++t) {
      submitters.emplace_back([&] {
        for (int i = 0; i < 250; ++i) pool.submit([&ran] { ran.fetch_add(1); });
      });
    }
    for (auto& submitter : submitters) submitter.join();
  }
  EXPECT_EQ(ran.load(), 1000);
}

}  // namespace
}  // namespace lanes::mimicry
