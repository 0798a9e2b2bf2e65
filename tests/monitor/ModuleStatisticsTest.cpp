#include "lanes/monitor/ModuleStatistics.h"

#include <cmath>
#include <optional>

#include <gtest/gtest.h>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "Synthetic.h"
#include "lanes/core/detail/TbbHandOff.h"

namespace lanes {
namespace {

using std::chrono::microseconds;
using test::call;

constexpr unsigned kTracks = 0, kSelect = 1, kWriter = 2;

// One event's worth of calls: every transition that counts somewhere, and
// one that counts nowhere.
void feedEvent(ModuleStatistics& statistics, std::uint64_t event) {
  statistics.callFinished(call(kSourceProducer, Transition::SourceNext, microseconds(1), event));
  statistics.callFinished(call(kSourceProducer, Transition::SourceRead, microseconds(2), event));
  statistics.callFinished(call(kTracks, Transition::Acquire, microseconds(3), event));
  statistics.callFinished(call(kTracks, Transition::Event, microseconds(4), event));
  statistics.callFinished(call(kSelect, Transition::Event, microseconds(5), event));
  statistics.callFinished(call(kWriter, Transition::ProductReady, microseconds(6), event));
  statistics.callFinished(call(kWriter, Transition::Event, microseconds(7), event));
  auto const wait = [&](unsigned module, WaitKind kind, microseconds duration) {
    statistics.waitFinished({module, kind, 0, EventId{1, 1, event}, Clock::time_point{}, Clock::time_point{} + duration});
  };
  wait(kSelect, WaitKind::Queue, microseconds(8));
  wait(kTracks, WaitKind::External, microseconds(9));
  wait(kSourceProducer, WaitKind::Idle, microseconds(2));
}

void expectTotals(ModuleStatistics::Totals const& totals, std::uint64_t events) {
  ASSERT_EQ(totals.modules.size(), 3u);
  EXPECT_EQ(totals.modules[kTracks].calls, 2 * events);
  EXPECT_EQ(totals.modules[kTracks].time, microseconds(7 * events));
  EXPECT_EQ(totals.modules[kSelect].calls, events);
  EXPECT_EQ(totals.modules[kSelect].time, microseconds(5 * events));
  EXPECT_EQ(totals.modules[kWriter].calls, events);
  EXPECT_EQ(totals.modules[kWriter].time, microseconds(13 * events));  // its productReady calls are its own
  EXPECT_EQ(totals.modules[kWriter].events, events);
  EXPECT_EQ(totals.modules[kTracks].events, events);
  EXPECT_EQ(totals.waits[kSelect].queue, microseconds(8 * events));
  EXPECT_EQ(totals.waits[kTracks].queue, Clock::duration::zero());
  EXPECT_EQ(totals.waits[kTracks].external, microseconds(9 * events));
  EXPECT_EQ(totals.waits[kTracks].acquire, microseconds(3 * events));
  EXPECT_NEAR(totals.waits[kTracks].externalSeconds(), 6e-6 * static_cast<double>(events), 1e-12);
  ASSERT_FALSE(totals.laneIdle.empty());
  EXPECT_EQ(totals.laneIdle[0], microseconds(2 * events));
  EXPECT_EQ(totals.source.calls, 2 * events);
  EXPECT_EQ(totals.source.time, microseconds(3 * events));
  EXPECT_EQ(totals.outputs.calls, 2 * events);
  EXPECT_EQ(totals.outputs.time, microseconds(13 * events));
  EXPECT_EQ(totals.timedCalls, 7 * events);  // every record, those that count nowhere too
  EXPECT_EQ(totals.timedWaits, 3 * events);
}

// The calls' histograms of feedEvent()'s `events` events (compact: [first
// bucket, counts...] in 8 buckets to an octave): each time in its bucket, and
// none lost, with more calls per thread than the statistics batch.
void expectCallTimes(ModuleStatistics const& statistics, std::uint64_t events) {
  auto const json = statistics.callTimesJson();
  auto const expectOne = [&](nlohmann::json const& compact, double seconds, char const* what) {
    ASSERT_EQ(compact.size(), 2u) << what << ": " << compact;  // one bucket
    EXPECT_EQ(compact[0].get<int>(), static_cast<int>(std::floor(std::log2(seconds) * 8))) << what;
    EXPECT_EQ(compact[1].get<std::uint64_t>(), events) << what;
  };
  auto const& modules = json["modules"];
  expectOne(modules[kTracks]["acquire"], 3e-6, "tracks acquire");
  expectOne(modules[kTracks]["event"], 4e-6, "tracks event");
  expectOne(modules[kTracks]["external"], 9e-6, "tracks external");
  expectOne(modules[kSelect]["event"], 5e-6, "select event");
  expectOne(modules[kWriter]["product_ready"], 6e-6, "writer product_ready");
  expectOne(modules[kWriter]["event"], 7e-6, "writer event");
  expectOne(json["source"]["next"], 1e-6, "source next");
  expectOne(json["source"]["read"], 2e-6, "source read");
}

TEST(ModuleStatistics, CountsEachTransitionWhereItBelongs) {
  ModuleStatistics statistics;
  statistics.jobStarted(test::syntheticJob());
  feedEvent(statistics, 2);
  expectTotals(statistics.totals(), 1);
  EXPECT_DOUBLE_EQ(statistics.totals().modules[kTracks].seconds(), 7e-6);
}

TEST(ModuleStatistics, IgnoresJobTransitions) {
  ModuleStatistics statistics;
  statistics.jobStarted(test::syntheticJob());
  statistics.callFinished(call(kTracks, Transition::BeginJob, microseconds(100)));
  statistics.callFinished(call(kWriter, Transition::EndJob, microseconds(100)));
  auto const totals = statistics.totals();
  EXPECT_EQ(totals.modules[kTracks].calls, 0u);
  EXPECT_EQ(totals.outputs.calls, 0u);
  EXPECT_EQ(totals.outputs.time, Clock::duration::zero());
}

TEST(ModuleStatistics, JobStartedForgetsThePreviousJob) {
  ModuleStatistics statistics;
  statistics.jobStarted(test::syntheticJob());
  feedEvent(statistics, 1);
  statistics.jobStarted(test::syntheticJob());
  expectTotals(statistics.totals(), 0);
}

TEST(ModuleStatistics, AStatisticsMadeWhereAnotherDiedStartsFromNothing) {
  std::optional<ModuleStatistics> statistics;
  for (std::uint64_t events : {3, 1}) {
    statistics.emplace();  // often at the address of the one before: a thread's cache must not take it for that one
    statistics->jobStarted(test::syntheticJob());
    for (std::uint64_t i = 0; i < events; ++i) feedEvent(*statistics, i);
    expectTotals(statistics->totals(), events);
  }
}

TEST(ModuleStatistics, AJobOfNoModulesStillCountsItsLanesIdleTime) {
  ModuleStatistics statistics;
  JobInfo job;
  job.lanes = 2;
  statistics.jobStarted(job);
  statistics.waitFinished({kSourceProducer, WaitKind::Idle, 1, EventId{1, 1, 1}, Clock::time_point{},
                           Clock::time_point{} + microseconds(5)});
  auto const totals = statistics.totals();
  ASSERT_EQ(totals.laneIdle.size(), 2u);
  EXPECT_EQ(totals.laneIdle[1], microseconds(5));
}

class ModuleStatisticsConcurrent : public testing::TestWithParam<unsigned> {};

TEST_P(ModuleStatisticsConcurrent, ForeignThreadsSumExactly) {
  unsigned const threads = GetParam();
  std::uint64_t const perThread = 1000;
  ModuleStatistics statistics;
  statistics.jobStarted(test::syntheticJob(threads));
  test::onThreads(threads, [&](unsigned t) {
    for (std::uint64_t i = 0; i < perThread; ++i) feedEvent(statistics, t * perThread + i);
  });
  auto const totals = statistics.totals();
  expectTotals(totals, threads * perThread);
  expectCallTimes(statistics, threads * perThread);
}

// `events` events fed to `statistics` by the arena's threads; returns once
// they are (handed over and joined for TSan: lanes/core/detail/TbbHandOff.h).
void feedConcurrently(tbb::task_arena& arena, ModuleStatistics& statistics, std::uint64_t events) {
  arena.execute([&] {
    tbb::parallel_for(std::uint64_t{0}, events,
                      detail::handedOver([&](std::uint64_t i) { feedEvent(statistics, i); }, &statistics));
  });
  detail::joined(&statistics);
}

TEST_P(ModuleStatisticsConcurrent, TbbWorkersSumExactly) {
  unsigned const threads = GetParam();
  std::uint64_t const events = 4000;
  ModuleStatistics statistics;
  statistics.jobStarted(test::syntheticJob(threads));
  tbb::global_control allowAll(tbb::global_control::max_allowed_parallelism, threads);  // even beyond the cores
  tbb::task_arena arena(static_cast<int>(threads));
  feedConcurrently(arena, statistics, events);
  auto const totals = statistics.totals();
  expectTotals(totals, events);
  expectCallTimes(statistics, events);
}

// Two statistics fed in turn by the same threads: each thread's cache
// switches between them on every call, and neither gets the other's records.
TEST_P(ModuleStatisticsConcurrent, TwoStatisticsOnTheSameThreadsKeepTheirOwnSums) {
  unsigned const threads = GetParam();
  std::uint64_t const perThread = 500;
  ModuleStatistics once, twice;
  once.jobStarted(test::syntheticJob(threads));
  twice.jobStarted(test::syntheticJob(threads));
  test::onThreads(threads, [&](unsigned t) {
    for (std::uint64_t i = 0; i < perThread; ++i) {
      feedEvent(twice, t * perThread + i);
      feedEvent(once, t * perThread + i);
      feedEvent(twice, t * perThread + i);
    }
  });
  expectTotals(once.totals(), threads * perThread);
  expectTotals(twice.totals(), 2 * threads * perThread);
}

// The arena's threads outlive the first job, with their caches: the second
// job's sums start from nothing all the same.
TEST_P(ModuleStatisticsConcurrent, ANewJobOnTheSameThreadsStartsFromNothing) {
  unsigned const threads = GetParam();
  ModuleStatistics statistics;
  tbb::global_control allowAll(tbb::global_control::max_allowed_parallelism, threads);
  tbb::task_arena arena(static_cast<int>(threads));
  for (std::uint64_t events : {3000, 1000}) {
    statistics.jobStarted(test::syntheticJob(threads));
    feedConcurrently(arena, statistics, events);
    expectTotals(statistics.totals(), events);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ModuleStatisticsConcurrent, testing::Range(1u, 5u));

}  // namespace
}  // namespace lanes
