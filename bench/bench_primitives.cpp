// Micro-benchmarks (Google Benchmark) of the scheduler's building blocks:
// the waiting list every module and source product has in every event, and
// the task queue that serialises `one` modules and shared sources.
//   build/bin/bench_primitives --benchmark_format=json

#include <benchmark/benchmark.h>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "lanes/core/LimitedTaskQueue.h"
#include "lanes/core/detail/WaitingList.h"

namespace {

struct NullWaiter final : lanes::detail::Waiter {
  void notify() override { benchmark::DoNotOptimize(this); }
};

// One event's life of a waiting list: reset, a few waiters, done.
void waitingListCycle(benchmark::State& state) {
  lanes::detail::WaitingList list;
  std::vector<NullWaiter> waiters(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    list.reset();
    for (auto& waiter : waiters) list.add(&waiter);
    list.markDone();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(waitingListCycle)->Arg(0)->Arg(1)->Arg(4);

// Tasks through a queue of the given limit, on two threads.
void limitedTaskQueue(benchmark::State& state) {
  tbb::task_arena arena(2);
  constexpr int kTasks = 10000;
  for (auto _ : state) {
    arena.execute([&] {
      tbb::task_group group;
      lanes::LimitedTaskQueue queue(group, static_cast<unsigned>(state.range(0)));
      for (int i = 0; i < kTasks; ++i) queue.push([] { benchmark::ClobberMemory(); });
      group.wait();
    });
  }
  state.SetItemsProcessed(state.iterations() * kTasks);
}
BENCHMARK(limitedTaskQueue)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
