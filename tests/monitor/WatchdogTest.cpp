// What the watchdog says of a lane that makes no progress: the module call it
// runs, or that it is between calls; and the actions' names.

#include "lanes/monitor/Watchdog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "Synthetic.h"
#include "lanes/core/Exception.h"

namespace lanes {
namespace {

TEST(Watchdog, NamesTheModuleCallALaneRuns) {
  LaneActivity const activity{2, true, EventId{1, 7, 400}, 1u, {}};
  EXPECT_EQ(describeActivity(activity, test::syntheticJob()),
            "module 'select' (pass) on lane 2, event 1:7:400, pid " + std::to_string(::getpid()));
}

TEST(Watchdog, NamesALaneBetweenModuleCalls) {
  LaneActivity const activity{3, true, EventId{1, 1, 9}, std::nullopt, {}};
  EXPECT_EQ(describeActivity(activity, test::syntheticJob()),
            "lane 3, event 1:1:9, pid " + std::to_string(::getpid()) + ", between module calls");
}

TEST(Watchdog, ActionsByName) {
  for (auto const action : {WatchdogAction::Warn, WatchdogAction::Stop, WatchdogAction::Abort}) {
    EXPECT_EQ(parseWatchdogAction(toString(action)), action);
  }
  EXPECT_THROW(parseWatchdogAction("ignore"), Exception);
}

}  // namespace
}  // namespace lanes
