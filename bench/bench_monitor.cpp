// Micro-benchmarks (Google Benchmark) of the monitor's per-call timing path:
// the clock it reads, one call record as the lanes make it (two reads, the
// hooks' dispatch, the per-thread sums), and whole jobs of many trivial
// module calls with the monitor off and on. ns per call is the difference
// between the two jobs' time per item (an item is a module call).
//   build/bin/bench_monitor --benchmark_format=json
//   bench/monitor_cost.sh   # docs/benchmarks.md's figures, paired with the top speed

#include <iostream>

#include <benchmark/benchmark.h>

#include "lanes/core/EventProcessor.h"
#include "lanes/core/FastClock.h"
#include "lanes/monitor/ProgressTicker.h"
#include "lanes/monitor/RunStatistics.h"

namespace {

using namespace lanes;

void steadyClockNow(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Clock::now());
}
BENCHMARK(steadyClockNow);

void fastClockNow(benchmark::State& state) {
  auto const clock = FastClock::calibrated();
  state.counters["reads_ticks"] = clock.readsTicks();
  for (auto _ : state) benchmark::DoNotOptimize(clock.now());
}
BENCHMARK(fastClockNow);

// One call record through the observers that `lanes run` attaches, as
// Lane::runModule() makes it. Arguments: the monitor off (0, the lane's check
// only) or on (1); the clock: steady_clock (0, what the lanes read before
// FastClock) or calibrated (1).
void timedCall(benchmark::State& state) {
  bool const timing = state.range(0) != 0;
  RunStatistics statistics;
  ProgressTicker ticker(std::cerr, ProgressStyle::Off);
  std::vector<ProcessingObserver*> observers;
  JobInfo job{1, 1, {{"m", "analyzer", ModuleKind::Analyzer, Concurrency::Global}}, "empty"};
  for (ProcessingObserver* observer : {static_cast<ProcessingObserver*>(&statistics), static_cast<ProcessingObserver*>(&ticker)}) {
    observer->jobStarted(job);
    if (observer->hooks() & ProcessingObserver::kCalls) observers.push_back(observer);
  }
  auto const clock = state.range(1) ? FastClock::calibrated() : FastClock::steady();
  benchmark::DoNotOptimize(observers.data());
  for (auto _ : state) {
    auto const begin = timing ? clock.now() : Clock::time_point{};
    benchmark::ClobberMemory();
    if (timing) {
      CallRecord const record{0, Transition::Event, 0, EventId{1, 1, 1}, begin, clock.now()};
      for (auto* observer : observers) observer->callFinished(record);
    }
  }
  ticker.jobFinished();
}
BENCHMARK(timedCall)->Args({0, 1})->Args({1, 0})->Args({1, 1});

// A job of trivial analyzers on one path, 1 thread: every item is a module
// call. Arguments: the monitor off (0) or on (1, what `lanes run` attaches).
void jobOfModuleCalls(benchmark::State& state) {
  bool const monitored = state.range(0) != 0;
  constexpr int kModules = 16;
  constexpr std::uint64_t kEvents = 20000;
  JobConfig config;
  config.source = PluginSpec::parse("empty");
  config.threads = 1;
  config.maxEvents = kEvents;
  config.paths.push_back({"all", {}});
  for (int m = 0; m < kModules; ++m) {
    auto const label = "a" + std::to_string(m);
    config.modules.push_back({label, PluginSpec::parse("analyzer")});
    config.paths.back().modules.push_back(label);
  }
  for (auto _ : state) {
    EventProcessor processor(config);
    RunStatistics statistics;
    ProgressTicker ticker(std::cerr, ProgressStyle::Off);
    if (monitored) {
      processor.addObserver(&statistics);
      processor.addObserver(&ticker);
    }
    auto const summary = processor.run();
    if (summary.failed) state.SkipWithError(summary.error.c_str());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kEvents * kModules));
}
BENCHMARK(jobOfModuleCalls)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
