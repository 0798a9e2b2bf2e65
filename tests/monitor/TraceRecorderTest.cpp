#include "lanes/monitor/TraceRecorder.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "Synthetic.h"
#include "lanes/core/TemporaryName.h"

namespace lanes {
namespace {

using std::chrono::microseconds;
using test::call;

std::string tempPath(std::string const& name) { return testing::TempDir() + "lanes-trace-" + name; }

nlohmann::json readJson(std::string const& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::vector<nlohmann::json> eventsOfPhase(nlohmann::json const& trace, std::string const& phase) {
  std::vector<nlohmann::json> events;
  for (auto const& event : trace.at("traceEvents")) {
    if (event.at("ph") == phase) events.push_back(event);
  }
  return events;
}

TEST(TraceRecorder, WritesOneCompleteEventPerCall) {
  auto const path = tempPath("one-thread.json");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob());
  auto const origin = Clock::now();
  recorder.callFinished(call(kSourceProducer, Transition::SourceNext, microseconds(5), 7, 1, origin));
  recorder.callFinished(call(0, Transition::Event, microseconds(20), 7, 1, origin + microseconds(10)));
  recorder.jobFinished();
  ASSERT_EQ(recorder.size(), 2u);

  recorder.close();
  auto const calls = eventsOfPhase(readJson(path), "X");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].at("name"), "source");
  EXPECT_EQ(calls[0].at("cat"), toString(Transition::SourceNext));
  EXPECT_EQ(calls[0].at("dur"), 5.0);
  EXPECT_EQ(calls[1].at("name"), "tracks");
  EXPECT_EQ(calls[1].at("cat"), toString(Transition::Event));
  EXPECT_EQ(calls[1].at("dur"), 20.0);
  EXPECT_EQ(calls[1].at("args").at("lane"), 1);
  EXPECT_EQ(calls[1].at("args").at("event"), "1:1:7");
  EXPECT_GE(calls[0].at("ts").get<double>(), 0.0);
  EXPECT_NEAR(calls[1].at("ts").get<double>() - calls[0].at("ts").get<double>(), 10.0, 1e-3);
  EXPECT_EQ(calls[0].at("tid"), calls[1].at("tid"));
  EXPECT_FALSE(std::filesystem::exists(partialPath(path, ::getpid())));
  std::filesystem::remove(path);
}

class TraceRecorderConcurrent : public testing::TestWithParam<unsigned> {};

TEST_P(TraceRecorderConcurrent, NamesEachThreadAndKeepsEveryCall) {
  unsigned const threads = GetParam();
  unsigned const perThread = 500;
  auto const path = tempPath("threads-" + std::to_string(threads) + ".json");
  TraceRecorder recorder(path, /*chunk=*/64);  // most calls reach the file while the job runs
  recorder.jobStarted(test::syntheticJob(threads));
  auto const origin = Clock::now();
  test::onThreads(threads, [&](unsigned t) {
    for (unsigned i = 0; i < perThread; ++i) {
      recorder.callFinished(call(i % 3, Transition::Event, microseconds(1), i, t, origin + microseconds(i)));
    }
  });
  recorder.jobFinished();
  EXPECT_EQ(recorder.size(), threads * perThread);

  recorder.close();
  auto const trace = readJson(path);
  auto const calls = eventsOfPhase(trace, "X");
  ASSERT_EQ(calls.size(), threads * perThread);
  std::map<int, std::set<unsigned>> lanesByTid;  // each test thread used its own lane
  for (auto const& event : calls) lanesByTid[event.at("tid")].insert(event.at("args").at("lane").get<unsigned>());
  EXPECT_EQ(lanesByTid.size(), threads);
  for (auto const& [tid, lanes] : lanesByTid) EXPECT_EQ(lanes.size(), 1u) << "tid " << tid;

  std::set<int> named;
  for (auto const& event : eventsOfPhase(trace, "M")) {
    auto const tid = event.at("tid").get<unsigned>();
    if (event.at("name") == "thread_name" && tid < TraceRecorder::kWaitTrack) named.insert(tid);
  }
  EXPECT_EQ(named.size(), threads);
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Threads, TraceRecorderConcurrent, testing::Range(1u, 5u));

TEST(TraceRecorder, WaitsAreSlicesOnTheirLanesTrack) {
  auto const path = tempPath("waits.json");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob(2));
  auto const origin = Clock::now();
  recorder.callFinished(call(1, Transition::Event, microseconds(5), 7, 1, origin + microseconds(20)));
  recorder.waitFinished({1, WaitKind::Queue, 1, EventId{1, 1, 7}, origin + microseconds(10), origin + microseconds(20)});
  recorder.waitFinished({0, WaitKind::External, 0, EventId{1, 1, 8}, origin, origin + microseconds(30)});
  recorder.waitFinished({kSourceProducer, WaitKind::Idle, 1, EventId{1, 1, 9}, origin, origin + microseconds(4)});
  EXPECT_EQ(recorder.size(), 4u);
  recorder.close();
  std::map<std::string, nlohmann::json> byCategory;
  for (auto const& event : eventsOfPhase(readJson(path), "X")) byCategory[event.at("cat")] = event;
  ASSERT_EQ(byCategory.size(), 4u);
  auto const& queue = byCategory.at("wait:queue");
  EXPECT_EQ(queue.at("name"), "select");
  EXPECT_EQ(queue.at("tid"), TraceRecorder::kWaitTrack + 1);
  EXPECT_EQ(queue.at("args").at("lane"), 1);
  EXPECT_EQ(queue.at("args").at("event"), "1:1:7");
  EXPECT_DOUBLE_EQ(queue.at("dur").get<double>(), 10.0);
  EXPECT_EQ(byCategory.at("wait:external").at("name"), "tracks");
  EXPECT_EQ(byCategory.at("wait:idle").at("name"), "idle");
  EXPECT_NE(byCategory.at("event").at("tid"), queue.at("tid"));  // a thread's calls and a lane's waits never share a track
  std::filesystem::remove(path);
}

void expectCloseFails(TraceRecorder& recorder, std::string const& message) {
  try {
    recorder.close();
    FAIL() << "expected lanes::Exception";
  } catch (Exception const& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

TEST(TraceRecorder, StreamsFullBuffersToTheFileWhileTheJobRuns) {
  auto const path = tempPath("streaming.json");
  TraceRecorder recorder(path, /*chunk=*/10);
  recorder.jobStarted(test::syntheticJob());
  auto const origin = Clock::now();
  for (unsigned i = 0; i < 25; ++i) recorder.callFinished(call(0, Transition::Event, microseconds(1), i, 0, origin));
  std::ifstream partial(partialPath(path, ::getpid()));
  std::string const written((std::istreambuf_iterator<char>(partial)), std::istreambuf_iterator<char>());
  std::size_t calls = 0;
  for (auto at = written.find("\"ph\":\"X\""); at != std::string::npos; at = written.find("\"ph\":\"X\"", at + 1)) ++calls;
  EXPECT_EQ(calls, 20u) << "two full buffers are in the file, the third is not";
  recorder.jobFinished();
  recorder.close();
  EXPECT_EQ(eventsOfPhase(readJson(path), "X").size(), 25u);
  EXPECT_FALSE(std::filesystem::exists(partialPath(path, ::getpid())));
  std::filesystem::remove(path);
}

TEST(TraceRecorder, AFailedWriteThrowsWithItsCauseAndLeavesNoFile) {
  auto const path = tempPath("full.json");
  TraceRecorder recorder(path, /*chunk=*/1);
  // /dev/full takes no byte: every write fails with ENOSPC, as a full disk's.
  std::filesystem::remove(partialPath(path, ::getpid()));
  std::filesystem::create_symlink("/dev/full", partialPath(path, ::getpid()));
  recorder.jobStarted(test::syntheticJob());
  recorder.callFinished(call(0, Transition::Event, microseconds(1), 1, 0, Clock::now()));
  expectCloseFails(recorder, "cannot write '" + path + "': No space left on device");
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::is_symlink(partialPath(path, ::getpid())));
}

TEST(TraceRecorder, MissingDirectoryThrowsNamingTheFile) {
  auto const path = tempPath("no-such-directory/trace.json");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob());
  expectCloseFails(recorder, "cannot write '" + path + "': No such file or directory");
  EXPECT_FALSE(std::filesystem::exists(partialPath(path, ::getpid())));
}

TEST(TraceRecorder, FailedRenameLeavesNoTemporary) {
  auto const path = tempPath("occupied-by-a-directory");
  std::filesystem::create_directories(path + "/inside");
  TraceRecorder recorder(path);
  recorder.jobStarted(test::syntheticJob());
  EXPECT_THROW(recorder.close(), Exception);
  EXPECT_FALSE(std::filesystem::exists(partialPath(path, ::getpid())));
  std::filesystem::remove_all(path);
}

}  // namespace
}  // namespace lanes
