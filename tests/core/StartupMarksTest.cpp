// Start-up marks: each phase once, in order, none after the first event's; marks from many threads at once.

#include "lanes/core/StartupMarks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace lanes {
namespace {

std::vector<std::string> namesOf(StartupMarks const& marks) {
  std::vector<std::string> names;
  for (auto const& [name, end] : marks.marks()) names.push_back(name);
  return names;
}

bool inOrder(StartupMarks const& marks) {
  auto previous = marks.mainBegan();
  for (auto const& [name, end] : marks.marks()) {
    if (end < previous) return false;
    previous = end;
  }
  return true;
}

TEST(StartupMarksTest, EachPhaseEndsOnceInOrderUpToTheFirstEvent) {
  StartupMarks marks;
  marks.beginMain();
  marks.mark("command");
  marks.mark("root");
  marks.mark("command");  // again: its first end counts
  marks.mark(StartupMarks::kFirstEvent);
  marks.mark("open");  // a file a lane opens later is no part of the start-up
  marks.mark(StartupMarks::kFirstEvent);
  EXPECT_EQ(namesOf(marks), (std::vector<std::string>{"command", "root", "first_event"}));
  EXPECT_TRUE(inOrder(marks));
}

TEST(StartupMarksTest, ConcurrentMarksKeepOneOfEachPhaseAndStopAtTheFirstEvent) {
  for (int round = 0; round < 20; ++round) {
    StartupMarks marks;
    marks.beginMain();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&marks, t] {
        for (int i = 0; i < 100; ++i) marks.mark("phase" + std::to_string(i));  // each phase from every thread
        marks.mark(StartupMarks::kFirstEvent);
        for (int i = 0; i < 100; ++i) marks.mark("late" + std::to_string(t) + "." + std::to_string(i));
      });
    }
    for (auto& thread : threads) thread.join();
    auto names = namesOf(marks);
    ASSERT_EQ(names.back(), StartupMarks::kFirstEvent) << "no phase ends after the first event";
    EXPECT_EQ(std::count(names.begin(), names.end(), StartupMarks::kFirstEvent), 1);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << "a phase ended twice";
    EXPECT_TRUE(inOrder(marks));
  }
}

}  // namespace
}  // namespace lanes
