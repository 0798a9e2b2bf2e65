#include "lanes/monitor/ProgressTicker.h"

#include <algorithm>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "Synthetic.h"

namespace lanes {
namespace {

using namespace std::chrono_literals;

void finishEvents(ProgressTicker& ticker, unsigned threads, unsigned perThread) {
  test::onThreads(threads, [&](unsigned t) {
    for (unsigned i = 0; i < perThread; ++i) {
      ticker.eventFinished(t, EventId{1, 1, i}, i % 4 ? EventStatus::Done : EventStatus::Failed, Clock::now());
    }
  });
}

// The text after the last carriage return: the line a terminal shows.
std::string lastLine(std::string const& text) { return text.substr(text.rfind('\r') + 1); }

TEST(ProgressTicker, SilentWhenDisabled) {
  std::ostringstream out;
  ProgressTicker ticker(out, ProgressStyle::Off, 1ms);
  ticker.jobStarted(test::syntheticJob());
  finishEvents(ticker, 2, 100);
  ticker.jobFinished();
  EXPECT_EQ(out.str(), "");
}

class ProgressTickerConcurrent : public testing::TestWithParam<unsigned> {};

TEST_P(ProgressTickerConcurrent, FinalLineCountsEveryDoneEvent) {
  unsigned const threads = GetParam();
  std::ostringstream out;
  ProgressTicker ticker(out, ProgressStyle::Live, 1ms);
  ticker.jobStarted(test::syntheticJob(threads));
  finishEvents(ticker, threads, 400);
  ticker.jobFinished();
  auto const text = out.str();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  auto const line = lastLine(text);
  EXPECT_EQ(line.rfind("  " + std::to_string(threads * 300) + " events  ", 0), 0u) << line;
  EXPECT_NE(line.find(" ev/s  "), std::string::npos) << line;
}

INSTANTIATE_TEST_SUITE_P(Threads, ProgressTickerConcurrent, testing::Range(1u, 5u));

// With a period of an hour, only a prompt wake-up lets these return.
TEST(ProgressTicker, StopsWithoutWaitingForTheNextTick) {
  std::ostringstream out;
  ProgressTicker ticker(out, ProgressStyle::Live, 1h);
  ticker.jobStarted(test::syntheticJob());
  ticker.jobFinished();
  EXPECT_EQ(lastLine(out.str()).rfind("  0 events  ", 0), 0u) << out.str();
}

TEST(ProgressTicker, DestructorStopsARunningTicker) {
  std::ostringstream out;
  {
    ProgressTicker ticker(out, ProgressStyle::Live, 1h);
    ticker.jobStarted(test::syntheticJob());
  }
  EXPECT_EQ(out.str(), "");
}

// A heartbeat is whole lines; with a known total it gives the share and the
// ETA, and the last line, ending ", finished", counts every event.
TEST(ProgressTicker, HeartbeatLinesWithTotal) {
  std::ostringstream out;
  ProgressTicker ticker(out, ProgressStyle::Heartbeat, 1ms);
  auto job = test::syntheticJob(2);
  job.expectedEvents = 200;
  ticker.jobStarted(job);
  finishEvents(ticker, 2, 100);
  ticker.jobFinished();
  auto const text = out.str();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\r'), std::string::npos);
  auto const last = text.substr(text.rfind('\n', text.size() - 2) + 1);
  EXPECT_EQ(last.rfind("lanes: progress: 150 events, ", 0), 0u) << text;
  EXPECT_NE(last.find("75.0% of 200, finished\n"), std::string::npos) << text;
}

TEST(ProgressTicker, HeartbeatOfAPartNamesItAndShowsNoTotal) {
  std::ostringstream out;
  ProgressTicker ticker(out, ProgressStyle::Heartbeat, 1h, "worker-1");
  auto job = test::syntheticJob(1);
  job.expectedEvents = 200;
  ticker.jobStarted(job);
  finishEvents(ticker, 1, 4);
  ticker.jobFinished();
  EXPECT_EQ(out.str().rfind("lanes: progress worker-1: 3 events, ", 0), 0u) << out.str();
  EXPECT_EQ(out.str().find('%'), std::string::npos) << out.str();
}

// JSON lines for a program that draws its own bar (the Python API's): whole
// lines of events, total (null when unknown) and elapsed, the last one
// finished.
TEST(ProgressTicker, JsonLinesForAProgram) {
  std::ostringstream out;
  ProgressTicker ticker(out, ProgressStyle::Json, 1h);
  auto job = test::syntheticJob(2);
  job.expectedEvents = 200;
  ticker.jobStarted(job);
  finishEvents(ticker, 2, 100);
  ticker.jobFinished();
  auto const text = out.str();
  EXPECT_EQ(text.rfind("{\"events\": 150, \"total\": 200, \"elapsed_s\": ", 0), 0u) << text;
  EXPECT_NE(text.find(", \"finished\": true}\n"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;

  std::ostringstream unknown;
  ProgressLine line(unknown, ProgressStyle::Json, 1h);
  line.start(0);
  line.draw(7, false);
  EXPECT_EQ(unknown.str().rfind("{\"events\": 7, \"total\": null, ", 0), 0u) << unknown.str();
  EXPECT_NE(unknown.str().find("\"finished\": false}\n"), std::string::npos) << unknown.str();
}

// The line a caller draws from its own loop (a multi-process parent): only
// when a period is due, then not again before the next.
TEST(ProgressLine, DrawsWhenDueOnly) {
  std::ostringstream out;
  ProgressLine never(out, ProgressStyle::Heartbeat, 1h);
  never.start(10);
  never.drawIfDue(3);
  EXPECT_EQ(out.str(), "");
  never.draw(10, true);
  EXPECT_EQ(out.str().rfind("lanes: progress: 10 events, ", 0), 0u) << out.str();
  EXPECT_NE(out.str().find(", 100.0% of 10, finished\n"), std::string::npos) << out.str();

  std::ostringstream often;
  ProgressLine line(often, ProgressStyle::Heartbeat, 1ms);
  line.start(0);
  while (Clock::now() < line.nextDue()) std::this_thread::yield();
  auto const drawn = Clock::now();
  line.drawIfDue(5);
  EXPECT_EQ(often.str().rfind("lanes: progress: 5 events, ", 0), 0u) << often.str();
  EXPECT_EQ(often.str().find('%'), std::string::npos) << often.str();
  EXPECT_GT(line.nextDue(), drawn);  // the next period, not one already past
}

}  // namespace
}  // namespace lanes
