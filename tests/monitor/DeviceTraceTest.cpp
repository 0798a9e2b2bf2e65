#include "lanes/monitor/DeviceTrace.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "Synthetic.h"
#include "lanes/monitor/TraceRecorder.h"

namespace lanes {
namespace {

using std::chrono::microseconds;

std::string tempPath(std::string const& name) { return testing::TempDir() + "lanes-device-trace-" + name; }

TEST(DeviceTrace, DoesNothingWithoutARecorder) {
  EXPECT_EQ(deviceTrace::newFlow(), 0u);
  deviceTrace::flowFromHere(0);
  deviceTrace::work(0, "kernel", Clock::now(), Clock::now(), 0, 0);  // no recorder: nothing to crash into
}

TEST(DeviceTrace, StopsWhenTheRecorderCloses) {
  auto const path = tempPath("closed.json");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob());
  EXPECT_NE(deviceTrace::newFlow(), 0u);
  recorder.jobFinished();
  recorder.close();
  EXPECT_EQ(deviceTrace::newFlow(), 0u);
  std::filesystem::remove(path);
}

TEST(DeviceTrace, StreamsDeviceWorkToTheFileWhileTheJobRuns) {
  auto const path = tempPath("streaming.json");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob());
  auto const now = Clock::now();
  for (int i = 0; i < 20000; ++i) deviceTrace::work(0, "kernel", now, now, 0, 0);  // a few MiB of events
  std::ifstream partial(path + ".tmp");
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
