#include "lanes/monitor/DeviceTrace.h"

#include <atomic>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <latch>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "Synthetic.h"
#include "lanes/core/TemporaryName.h"
#include "lanes/monitor/TraceRecorder.h"

namespace lanes {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

std::string tempPath(std::string const& name) { return testing::TempDir() + "lanes-device-trace-" + name; }

TEST(DeviceTrace, DoesNothingWithoutARecorder) {
  EXPECT_FALSE(deviceTrace::recording());
  EXPECT_EQ(deviceTrace::newFlow(), 0u);
  deviceTrace::flowFromHere(0);
  deviceTrace::work(0, "kernel", Clock::now(), Clock::now(), 0, 0);  // no recorder: nothing to crash into
}

TEST(DeviceTrace, StopsWhenTheRecorderCloses) {
  auto const path = tempPath("closed.json");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob());
  EXPECT_TRUE(deviceTrace::recording());
  EXPECT_NE(deviceTrace::newFlow(), 0u);
  recorder.jobFinished();
  recorder.close();
  EXPECT_FALSE(deviceTrace::recording());
  EXPECT_EQ(deviceTrace::newFlow(), 0u);
  std::filesystem::remove(path);
}

TEST(DeviceTrace, StreamsDeviceWorkToTheFileWhileTheJobRuns) {
  auto const path = tempPath("streaming.json");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob());
  auto const now = Clock::now();
  for (int i = 0; i < 20000; ++i) deviceTrace::work(0, "kernel", now, now, 0, 0);  // a few MiB of events
  std::ifstream partial(partialPath(path, ::getpid()));
  std::string const written((std::istreambuf_iterator<char>(partial)), std::istreambuf_iterator<char>());
  EXPECT_NE(written.find(R"("cat":"device")"), std::string::npos) << "memory stays bounded: most are in the file";
  recorder.jobFinished();
  recorder.close();
  std::ifstream in(path);
  auto const trace = nlohmann::json::parse(in);
  std::size_t boxes = 0;
  for (auto const& event : trace.at("traceEvents")) boxes += event.at("ph") == "X" ? 1 : 0;
  EXPECT_EQ(boxes, 20000u);
  std::filesystem::remove(path);
}

nlohmann::json readTrace(std::string const& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::size_t deviceBoxes(nlohmann::json const& trace) {
  std::size_t boxes = 0;
  for (auto const& event : trace.at("traceEvents")) boxes += event.at("ph") == "X" && event.at("cat") == "device" ? 1 : 0;
  return boxes;
}

// Microseconds from `origin` to `point`.
double at(Clock::time_point origin, Clock::time_point point) {
  return std::chrono::duration<double, std::micro>(point - origin).count();
}

// Device times given as seconds after a reference, with the host's certain bounds: work enqueued at 0, seen done
// at 10 ms.
class OnHostClock : public testing::Test {
 protected:
  deviceTrace::Interval place(double beginS, double endS, milliseconds done = milliseconds(10)) const {
    return deviceTrace::onHostClock(reference_, beginS, endS, reference_, reference_ + done);
  }
  void expectBox(deviceTrace::Interval box, double beginUs, double endUs) const {
    EXPECT_NEAR(at(reference_, box.begin), beginUs, 1e-3);
    EXPECT_NEAR(at(reference_, box.end), endUs, 1e-3);
  }
  Clock::time_point const reference_ = Clock::now();
};

TEST_F(OnHostClock, KeepsDeviceTimesThatFitWhatTheHostKnows) { expectBox(place(1e-3, 3e-3), 1000, 3000); }

TEST_F(OnHostClock, NeverDrawsWorkBeforeItsEnqueue) {
  expectBox(place(-2e-3, -1e-3), 0, 1000);  // a reference too early: moved later, its duration kept
}

TEST_F(OnHostClock, NeverDrawsWorkEndingAfterTheHostSawItDone) {
  expectBox(place(9e-3, 12e-3), 7000, 10000);  // a reference too late: moved earlier, its duration kept
}

TEST_F(OnHostClock, ShortensWorkLongerThanWhatTheHostKnows) {
  expectBox(place(0, 5e-3, milliseconds(2)), 0, 2000);
  expectBox(place(4e-3, 3e-3), 4000, 4000);  // an end before the begin: no duration
}

TEST(DeviceTraceBacklog, IsFlushedWhileTheRecorderClosesAndNotOnceGone) {
  auto const path = tempPath("backlog.json");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob());
  auto const flow = deviceTrace::newFlow();
  deviceTrace::flowFromHere(flow);
  auto const begin = Clock::now();
  int flushed = 0, gone = 0;
  {
    deviceTrace::Backlog early([&] { ++gone; });
  }
  deviceTrace::Backlog backlog([&] {
    ++flushed;
    EXPECT_TRUE(deviceTrace::recording());  // still the sink
    deviceTrace::work(3, "late", begin, begin + microseconds(5), flow, 0);
  });
  recorder.jobFinished();
  recorder.close();
  EXPECT_EQ(flushed, 1);
  EXPECT_EQ(gone, 0);
  auto const trace = readTrace(path);
  EXPECT_EQ(deviceBoxes(trace), 1u);
  std::set<std::string> flowEnds, names;
  for (auto const& event : trace.at("traceEvents")) {
    if (event.at("ph") == "s" || event.at("ph") == "f") flowEnds.insert(event.at("ph").get<std::string>());
    if (event.at("ph") == "M") names.insert(event.at("args").at("name").get<std::string>());
  }
  EXPECT_EQ(flowEnds, (std::set<std::string>{"s", "f"}));
  EXPECT_TRUE(names.count("device queue 3"));
  std::filesystem::remove(path);
}

class DeviceTraceBacklogs : public testing::TestWithParam<unsigned> {};

// Backlogs come and go on every thread while the recorder closes: each one alive throughout is flushed exactly
// once, each other at most once, and every box a flush draws is in the trace.
TEST_P(DeviceTraceBacklogs, ComeAndGoWhileTheRecorderCloses) {
  unsigned const threads = GetParam();
  auto const path = tempPath("backlogs-" + std::to_string(threads) + ".json");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob(threads));
  std::atomic<std::size_t> flushes{0};
  std::atomic<bool> closed{false};
  std::latch held(threads);
  auto draw = [&flushes](unsigned queue, std::atomic<unsigned>& count) {
    return [&flushes, &count, queue] {
      ++count;
      ++flushes;
      auto const now = Clock::now();
      deviceTrace::work(queue, "late", now, now, 0, 0);
    };
  };
  std::vector<std::atomic<unsigned>> heldFlushes(threads);
  std::thread closer([&] {
    held.wait();
    recorder.jobFinished();
    recorder.close();
    closed = true;
  });
  test::onThreads(threads, [&](unsigned t) {
    deviceTrace::Backlog kept(draw(t, heldFlushes[t]));
    held.count_down();
    while (!closed) {
      std::atomic<unsigned> once{0};
      {
        deviceTrace::Backlog churned(draw(t, once));
      }
      EXPECT_LE(once.load(), 1u);
    }
  });
  closer.join();
  for (unsigned t = 0; t < threads; ++t) EXPECT_EQ(heldFlushes[t].load(), 1u) << t;
  EXPECT_EQ(deviceBoxes(readTrace(path)), flushes.load());
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Threads, DeviceTraceBacklogs, testing::Range(1u, 5u));

class DeviceTraceConcurrent : public testing::TestWithParam<unsigned> {};

// Each host thread launches work on its own queue, as a module's acquire() does, and takes its result, as
// produce() does; the device's threads record the work. Every flow resolves, on the right tracks.
TEST_P(DeviceTraceConcurrent, EveryFlowResolvesOnItsTracks) {
  unsigned const threads = GetParam();
  unsigned const perThread = 200;
  auto const path = tempPath("threads-" + std::to_string(threads) + ".json");
  TraceRecorder recorder(path, /*chunk=*/32);
  recorder.jobStarted(test::syntheticJob(threads));
  test::onThreads(threads, [&](unsigned t) {
    for (unsigned i = 0; i < perThread; ++i) {
      auto const begin = Clock::now();
      auto const into = deviceTrace::newFlow(), out = deviceTrace::newFlow();
      deviceTrace::flowFromHere(into);
      recorder.callFinished(test::call(0, Transition::Acquire, microseconds(0), i, t, begin));
      std::thread device([&] {
        deviceTrace::Span span(t, "kernel", into, out);
      });
      device.join();
      deviceTrace::flowToHere(out);
    }
  });
  recorder.jobFinished();
  recorder.close();
  std::ifstream in(path);
  auto const trace = nlohmann::json::parse(in);
  std::map<std::uint64_t, std::map<std::string, nlohmann::json>> flows;
  std::size_t boxes = 0;
  std::set<std::string> queues;
  for (auto const& event : trace.at("traceEvents")) {
    auto const phase = event.at("ph").get<std::string>();
    if (phase == "s" || phase == "f") {
      EXPECT_TRUE(flows[event.at("id").get<std::uint64_t>()].emplace(phase, event).second) << event;
    }
    if (phase == "X" && event.at("cat") == "device") ++boxes;
    if (phase == "M" && event.at("name") == "thread_name") queues.insert(event.at("args").at("name").get<std::string>());
  }
  EXPECT_EQ(boxes, threads * perThread);
  EXPECT_EQ(flows.size(), 2u * threads * perThread);
  for (auto const& [id, ends] : flows) {
    ASSERT_EQ(ends.size(), 2u) << "flow " << id << " does not resolve";
    EXPECT_LE(ends.at("s").at("ts").get<double>(), ends.at("f").at("ts").get<double>());
    EXPECT_NE(ends.at("s").at("tid"), ends.at("f").at("tid"));  // host to device, or device to host
  }
  for (unsigned t = 0; t < threads; ++t) EXPECT_TRUE(queues.count("device queue " + std::to_string(t))) << t;
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Threads, DeviceTraceConcurrent, testing::Range(1u, 5u));

}  // namespace
}  // namespace lanes
