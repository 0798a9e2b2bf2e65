#pragma once
// Everything the run report gathers from the observer hooks, as one
// observer: the module, path and event statistics behind a single entry in
// the job's observer list, so that each call or event costs one virtual call
// however many of them listen (the members are called directly).

#include "lanes/monitor/BlockTimeline.h"
#include "lanes/monitor/EventStatistics.h"
#include "lanes/monitor/ModuleStatistics.h"
#include "lanes/monitor/PathStatistics.h"
#include "lanes/monitor/RunReport.h"

namespace lanes {

// Thread-safe as its members are (see there); read them after jobFinished().
class RunStatistics final : public ProcessingObserver {
 public:
  void jobStarted(JobInfo const& info) override {
    modules.jobStarted(info);
    paths.jobStarted(info);
    events.jobStarted(info);
    blocks.jobStarted(info);
  }
  void callFinished(CallRecord const& record) override { modules.callFinished(record); }
  void waitFinished(WaitRecord const& record) override { modules.waitFinished(record); }
  void eventStarted(unsigned lane, EventId const& id, Clock::time_point when) override {
    events.eventStarted(lane, id, when);
  }
  void pathFinished(unsigned lane, unsigned path, PathStatus status, unsigned step) override {
    paths.pathFinished(lane, path, status, step);
  }
  void eventFinished(unsigned lane, EventId const& id, EventStatus status, Clock::time_point when) override {
    events.eventFinished(lane, id, status, when);
  }
  void blockFinished(BlockRecord const& record) override { blocks.blockFinished(record); }

  // The path report and the event times, into a report built from `modules`.
  void addTo(RunReport& report) const {
    report.paths = paths.toJson();
    report.eventTimes = events.toJson();
    report.blocks.timeline = blocks.toJson();
  }

  ModuleStatistics modules;
  PathStatistics paths;
  EventStatistics events;
  BlockTimeline blocks;
};

}  // namespace lanes
