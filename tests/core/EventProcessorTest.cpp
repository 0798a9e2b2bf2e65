// The scheduler end to end, through the public EventProcessor API, at several
// thread and lane counts (generated, not copied).

#include <gtest/gtest.h>
#include <tbb/info.h>

#include <atomic>
#include <chrono>
#include <ostream>
#include <string>
#include <thread>

#include "core/TestPlugins.h"
#include "lanes/core/EventProcessor.h"

namespace lanes::test {
namespace {

struct Shape {
  unsigned threads;
  unsigned lanes;
};

class EventProcessorTest : public ::testing::TestWithParam<Shape> {
 protected:
  JobConfig shaped(std::string const& source = "count:events=40") {
    auto config = job(source);
    config.threads = GetParam().threads;
    config.lanes = GetParam().lanes;
    return config;
  }
  // A job whose source cannot read event 9, skipping failed events: only
  // the other 39 are written, and only their products announced.
  void expectEventNineSkippedUnannounced(std::string const& source);
  RunSummary runJob(JobConfig config) {
    auto registry = testRegistry(observations);
    EventProcessor processor(std::move(config), registry);
    return processor.run();
  }
  Observations observations;
};

// Sum over events 1..n of f(n).
template <typename F>
long sumOver(int events, F f) {
  long total = 0;
  for (int n = 1; n <= events; ++n) total += f(n);
  return total;
}

TEST_P(EventProcessorTest, EveryEventReachesTheOutputOnce) {
  auto config = shaped();
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  auto summary = runJob(config);
  EXPECT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 40u);
  EXPECT_EQ(observations.outputWrites, 40);
  EXPECT_EQ(observations.checksum, sumOver(40, [](int n) { return n; }));
}

TEST_P(EventProcessorTest, SharedSourceDeliversEveryEventOnce) {
  auto config = shaped("count:events=40,shared=true");
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  auto summary = runJob(config);
  EXPECT_EQ(summary.eventsProcessed, 40u);
  EXPECT_EQ(observations.checksum, sumOver(40, [](int n) { return n; }));
}

TEST_P(EventProcessorTest, ASharedFileSourceReadsEachEventWhereItFetchedIt) {
  // A shared source that reads files reads an event's products with its
  // next(), in the same turn of its serial queue: while lanes wait to fetch,
  // one thread does the reading, where batches pushed by each lane's modules
  // would run on whichever thread pushed them.
  auto config = shaped("count:events=40,shared=true");
  config.modules = {{"a", PluginSpec::parse("add:in=n")}};
  config.outputs.push_back({"sum", PluginSpec::parse("collect:in=a"), {}});
  config.outputs.push_back({"all", PluginSpec::parse("collect:ready=true"), {}});
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 40u);
  EXPECT_EQ(observations.checksum, sumOver(40, [](int n) { return (n + 1) + n; }));
  EXPECT_EQ(observations.productReadyCalls, 3 * 40);  // n, blob and a, to "all"
  EXPECT_EQ(observations.readsOffTheFetchingThread, 0);
}

TEST_P(EventProcessorTest, ProducersRunOnDemandInDependencyOrder) {
  auto config = shaped();
  // c needs b needs a; "unused" is consumed by nobody and must never run.
  config.modules = {{"c", PluginSpec::parse("add:in=b")},
                    {"b", PluginSpec::parse("add:in=a,in=n")},
                    {"a", PluginSpec::parse("add:in=n")},
                    {"unused", PluginSpec::parse("add:in=n")}};
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=c,keep=c"), {}});
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  // a = n+1, b = a+n+1 = 2n+2, c = b+1 = 2n+3
  EXPECT_EQ(observations.checksum, sumOver(40, [](int n) { return 2 * n + 3; }));
  EXPECT_EQ(observations.producerCalls, 3 * 40);
  if (GetParam().lanes == 1) {
    // One event at a time: within each event a runs before b before c.
    ASSERT_EQ(observations.order.size(), 120u);
    for (std::size_t i = 0; i < observations.order.size(); i += 3) {
      EXPECT_EQ(observations.order[i], "a");
      EXPECT_EQ(observations.order[i + 1], "b");
      EXPECT_EQ(observations.order[i + 2], "c");
    }
  }
}

TEST_P(EventProcessorTest, RejectingFilterEndsItsPathAndGatesSelectingOutputs) {
  auto config = shaped();
  config.modules = {{"even", PluginSpec::parse("even:in=n")}, {"after", PluginSpec::parse("global-probe")}};
  config.paths = {{"evens", {"even", "after"}}};
  config.outputs.push_back({"selected", PluginSpec::parse("collect:in=n"), {"evens"}});
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 40u);
  EXPECT_EQ(observations.probe.calls(), 20);  // "after" runs only behind accepted events
  EXPECT_EQ(observations.outputWrites, 20);
  EXPECT_EQ(observations.checksum, sumOver(40, [](int n) { return n % 2 == 0 ? n : 0; }));
}

TEST_P(EventProcessorTest, OneModuleIsNeverEnteredConcurrently) {
  auto config = shaped();
  config.modules = {{"probe", PluginSpec::parse("one-probe")}};
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(observations.probe.calls(), 40);
  EXPECT_EQ(observations.probe.maxInside(), 1);
}

TEST_P(EventProcessorTest, LimitedModuleNeverExceedsItsLimit) {
  auto config = shaped();
  config.modules = {{"probe", PluginSpec::parse("limited-probe:limit=2")}};
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(observations.probe.calls(), 40);
  EXPECT_LE(observations.probe.maxInside(), 2);
}

TEST_P(EventProcessorTest, StreamModuleHasOneInstancePerLane) {
  auto config = shaped();
  config.modules = {{"s", PluginSpec::parse("stream-add:in=n")}};
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=s"), {}});
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(observations.streamInstances, static_cast<int>(GetParam().lanes));
  EXPECT_EQ(observations.checksum, sumOver(40, [](int n) { return n + 1; }));
}

TEST_P(EventProcessorTest, ExternalWorkCompletesFromAForeignThread) {
  auto config = shaped();
  config.modules = {{"gpu", PluginSpec::parse("external")}};
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=gpu"), {}});
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(observations.producerCalls, 40);
  EXPECT_EQ(observations.checksum, sumOver(40, [](int n) { return 10 * n; }));
}

TEST_P(EventProcessorTest, FailedExternalWorkStopsTheJobNamingModuleAndEvent) {
  auto config = shaped();
  config.modules = {{"gpu", PluginSpec::parse("external:fail-at=7")}};
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=gpu"), {}});
  auto summary = runJob(config);
  EXPECT_TRUE(summary.failed);
  EXPECT_NE(summary.error.find("module 'gpu'"), std::string::npos) << summary.error;
  EXPECT_NE(summary.error.find("event 1:1:7"), std::string::npos) << summary.error;
  EXPECT_NE(summary.error.find("device failed"), std::string::npos) << summary.error;
  EXPECT_EQ(observations.abandoned, 1);
}

TEST_P(EventProcessorTest, DroppedCompletionFailsInsteadOfStalling) {
  auto config = shaped();
  config.modules = {{"gpu", PluginSpec::parse("external:drop-at=3")}};
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=gpu"), {}});
  auto summary = runJob(config);
  EXPECT_TRUE(summary.failed);
  EXPECT_NE(summary.error.find("without signalling"), std::string::npos) << summary.error;
}

TEST_P(EventProcessorTest, StopPolicyDrainsLanesAndReportsTheFirstFailure) {
  auto config = shaped();
  config.modules = {{"fault", PluginSpec::parse("throw:at=5")}};
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  auto summary = runJob(config);
  EXPECT_TRUE(summary.failed);
  EXPECT_EQ(summary.error, "module 'fault' (event, lane " + summary.error.substr(summary.error.find("lane ") + 5, 1) +
                               ", event 1:1:5): boom at 1:1:5");
  EXPECT_LT(summary.eventsProcessed, 40u);
  // Events in flight when the failure happened still finished: nothing is half-processed.
  EXPECT_EQ(static_cast<std::uint64_t>(observations.outputWrites.load()), summary.eventsProcessed);
  EXPECT_EQ(observations.abandoned, 1);
}

TEST_P(EventProcessorTest, SkipPolicySkipsAndCountsFailedEvents) {
  auto config = shaped();
  config.onError = ErrorPolicy::Skip;
  config.modules = {{"fault", PluginSpec::parse("throw:at=5")}};
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  auto summary = runJob(config);
  EXPECT_FALSE(summary.failed);
  EXPECT_EQ(summary.eventsProcessed, 39u);
  EXPECT_EQ(summary.eventsSkipped, 1u);
  EXPECT_EQ(observations.checksum, sumOver(40, [](int n) { return n == 5 ? 0 : n; }));
}

TEST_P(EventProcessorTest, SourceReadFailureNamesSourceFileAndEvent) {
  for (auto shared : {"false", "true"}) {
    auto config = shaped(std::string("count:events=40,fail-read-at=9,shared=") + shared);
    config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
    auto summary = runJob(config);
    EXPECT_TRUE(summary.failed);
    EXPECT_NE(summary.error.find("source (source read, lane "), std::string::npos) << summary.error;
    EXPECT_NE(summary.error.find("event 1:1:9, file 'count.src'): unreadable basket"), std::string::npos) << summary.error;
  }
}

TEST_P(EventProcessorTest, SourceNextFailureStopsTheJob) {
  for (auto shared : {"false", "true"}) {
    auto config = shaped(std::string("count:events=40,fail-next-at=9,shared=") + shared);
    config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
    auto summary = runJob(config);
    EXPECT_TRUE(summary.failed);
    EXPECT_NE(summary.error.find("file 'count.src'): corrupt entry"), std::string::npos) << summary.error;
    EXPECT_LT(summary.eventsProcessed, 40u);
  }
}

TEST_P(EventProcessorTest, ProductReadyIsCalledForEveryKeptProduct) {
  auto config = shaped();
  config.modules = {{"a", PluginSpec::parse("add:in=n")}};
  config.outputs.push_back({"out", PluginSpec::parse("collect:ready=true"), {}});
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(observations.productReadyCalls, 3 * 40);  // n, blob and a
}

TEST_P(EventProcessorTest, EachOutputHearsOfAProductOnceWhicheverReadIt) {
  // The first output reads both products in its batch and announces them to
  // itself; the second waits on them and is woken as they are done.
  auto config = shaped();
  config.outputs.push_back({"first", PluginSpec::parse("collect:ready=true"), {}});
  config.outputs.push_back({"second", PluginSpec::parse("collect:ready=true"), {}});
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(observations.outputWrites, 2 * 40);
  EXPECT_EQ(observations.productReadyCalls, 2 * 2 * 40);  // n and blob, to each output
}

TEST_P(EventProcessorTest, AnEventWhoseBatchReadFailsAnnouncesNothing) {
  expectEventNineSkippedUnannounced("count:events=40,fail-read-at=9");
}

TEST_P(EventProcessorTest, AnEventWhoseReadWithItsFetchFailsAnnouncesNothing) {
  expectEventNineSkippedUnannounced("count:events=40,fail-read-at=9,shared=true");
}

void EventProcessorTest::expectEventNineSkippedUnannounced(std::string const& source) {
  auto config = shaped(source);
  config.onError = ErrorPolicy::Skip;
  config.outputs.push_back({"out", PluginSpec::parse("collect:ready=true"), {}});
  auto summary = runJob(config);
  ASSERT_FALSE(summary.failed) << summary.error;
  EXPECT_EQ(summary.eventsProcessed, 39u);
  EXPECT_EQ(summary.eventsSkipped, 1u);
  EXPECT_EQ(observations.productReadyCalls, 2 * 39);
  EXPECT_EQ(observations.checksum, sumOver(40, [](int n) { return n == 9 ? 0 : n; }));
}

// productReady() calls meet in pairs: each waits until the call it pairs
// with has arrived too. Calls made one after another cannot both meet (the
// first waits in vain; after that the others stop waiting, so that a
// failure ends quickly).
class MeetingOutput : public global::Output {
 public:
  explicit MeetingOutput(std::string const& label) : Output(label) {}
  bool wantsProductReady() const override { return true; }
  void productReady(Event const&, ProductIndex) const override {
    auto const ticket = arrived_.fetch_add(1);
    auto const pairDone = ticket / 2 * 2 + 2;
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (arrived_.load() < pairDone && !gaveUp_.load() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    if (arrived_.load() >= pairDone) {
      met_.fetch_add(1);
    } else {
      gaveUp_.store(true);
    }
  }
  void write(Event const&) const override { events_.fetch_add(1); }
  int met() const { return met_.load(); }
  int events() const { return events_.load(); }

 private:
  mutable std::atomic<int> arrived_{0}, met_{0}, events_{0};
  mutable std::atomic<bool> gaveUp_{false};
};

struct ProductsFrom {
  std::string name;
  std::string source;
  friend void PrintTo(ProductsFrom const& from, std::ostream* out) { *out << from.source; }
};

class ProductReadyTest : public ::testing::TestWithParam<ProductsFrom> {};

TEST_P(ProductReadyTest, AnEventsProductsAreAnnouncedSideBySide) {
  // One lane, two threads: only if the two products of an event are
  // announced in parallel can both calls of each pair meet. From memory
  // (repeat=) they are ready at once, and from a shared file they are read
  // with the event; from a lane's own copy of a file they are read in one
  // batch, whose completion announces them for the output that read them.
  Observations observations;
  auto registry = testRegistry(observations);
  MeetingOutput* output = nullptr;
  registry.addOutput({"meeting", ""}, [&output](std::string const& label, Options const&) {
    auto made = std::make_unique<MeetingOutput>(label);
    output = made.get();
    return std::unique_ptr<OutputModule>(std::move(made));
  });
  auto config = job(GetParam().source);
  config.maxEvents = 20;
  config.threads = 2;
  config.lanes = 1;
  config.outputs.push_back({"out", PluginSpec::parse("meeting"), {}});
  EventProcessor processor(config, registry);
  auto const summary = processor.run();
  ASSERT_FALSE(summary.failed) << summary.error;
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->events(), 20);
  EXPECT_EQ(output->met(), 2 * 20);  // n and blob of every event
}

TEST(OutputFactoryTest, AFactoryForTheJobSeesItsThreadsAndLanes) {
  Observations observations;
  auto registry = testRegistry(observations);
  std::vector<std::pair<unsigned, unsigned>> shapes;  // (threads, lanes) of each output made
  registry.addOutputForJob({"shaped", ""}, [&](std::string const& label, Options const&, JobShape const& shape) {
    shapes.emplace_back(shape.threads, shape.lanes);
    Options collected;
    collected.add("in", "n");
    return registry.makeOutput("collect", label, collected);
  });
  for (auto [threads, lanes] : {std::pair{3u, 5u}, std::pair{2u, 0u}}) {
    auto config = job("count:events=4");
    config.threads = threads;
    config.lanes = lanes;
    config.outputs.push_back({"out", PluginSpec::parse("shaped"), {}});
    EventProcessor processor(config, registry);
    ASSERT_FALSE(processor.run().failed);
  }
  // lanes=0 is as many lanes as threads.
  EXPECT_EQ(shapes, (std::vector<std::pair<unsigned, unsigned>>{{3, 5}, {2, 2}}));
}

INSTANTIATE_TEST_SUITE_P(Sources, ProductReadyTest,
                         ::testing::Values(ProductsFrom{"FromMemory", "count:events=20,repeat=20"},
                                           ProductsFrom{"FromASharedFile", "count:events=20,shared=true"},
                                           ProductsFrom{"FromALanesOwnFile", "count:events=20"}),
                         [](auto const& info) { return info.param.name; });

TEST_P(EventProcessorTest, MaxEventsLimitsTheJob) {
  auto config = shaped("count:events=1000");
  config.maxEvents = 25;
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  auto summary = runJob(config);
  EXPECT_EQ(summary.eventsProcessed, 25u);
  EXPECT_EQ(observations.checksum, sumOver(25, [](int n) { return n; }));
}

TEST_P(EventProcessorTest, RepeatCyclesCachedEventsWithFreshNumbers) {
  auto config = shaped("count:events=1000,repeat=3");
  config.maxEvents = 10;
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  auto summary = runJob(config);
  EXPECT_EQ(summary.eventsProcessed, 10u);
  // The payload cycles 1,2,3,1,2,3,... while event numbers go on 1..10.
  EXPECT_EQ(observations.checksum, 1 + 2 + 3 + 1 + 2 + 3 + 1 + 2 + 3 + 1);
}

std::vector<Shape> shapes() {
  std::vector<Shape> result;
  for (unsigned threads : {1u, 2u, 4u}) {
    for (unsigned lanes : {1u, 2u, 4u, 8u}) result.push_back({threads, lanes});
  }
  return result;
}

INSTANTIATE_TEST_SUITE_P(ThreadsAndLanes, EventProcessorTest, ::testing::ValuesIn(shapes()),
                         [](auto const& info) {
                           return std::to_string(info.param.threads) + "threads_" + std::to_string(info.param.lanes) +
                                  "lanes";
                         });

}  // namespace
}  // namespace lanes::test

namespace lanes::test {
namespace {

TEST(EventProcessorLifecycleTest, AJobRunsOnce) {
  Observations observations;
  auto registry = testRegistry(observations);
  EventProcessor processor(job(), registry);
  EXPECT_EQ(processor.run().eventsProcessed, 20u);
  EXPECT_THROW(processor.run(), Exception);
}

TEST(EventProcessorLifecycleTest, OutputsEndInTheJobsArena) {
  // An output that finishes its buffers in parallel at endJob must use the
  // job's threads: more than this machine's cores here, which only the job's
  // own arena has.
  Observations observations;
  auto config = job("count:events=5");
  config.threads = static_cast<unsigned>(tbb::info::default_concurrency()) + 2;
  config.outputs.push_back({"out", PluginSpec::parse("collect:in=n"), {}});
  EXPECT_FALSE(EventProcessor(config, testRegistry(observations)).run().failed);
  EXPECT_EQ(observations.endJobConcurrency.load(), static_cast<int>(config.threads));
}

TEST(EventProcessorLifecycleTest, RequestStopEndsTheJobEarly) {
  // A stop after the third event: the job drains the events in flight and
  // reports the stop.
  Observations observations;
  auto config = job("count:events=100000");
  config.threads = 2;
  config.lanes = 2;
  auto const summary = runStoppingAfter(config, testRegistry(observations), 3);
  EXPECT_TRUE(summary.stopRequested);
  EXPECT_FALSE(summary.failed);
  EXPECT_GE(summary.eventsProcessed, 3u);
  EXPECT_LE(summary.eventsProcessed, 3u + 2u);  // at most one more per lane in flight
}

}  // namespace
}  // namespace lanes::test
