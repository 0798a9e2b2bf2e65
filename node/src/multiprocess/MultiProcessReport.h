#pragma once
// The whole job's figures in a multi-process report, merged from its parts'
// run reports (the events before the fork, each finished worker's).

#include <nlohmann/json.hpp>

#include "lanes/monitor/RunReport.h"
#include "lanes/node/WorkerBoard.h"

namespace lanes::node {

// The parts' reports merged (lanes/monitor/ReportMerge.h).
RunReport mergedFigures(nlohmann::json const& report);

// Adds to a multi-process or MPI report (its workers' or ranks' reports
// under workers[].report), with the keys of a single process's: modules,
// source_s, outputs_s, thread_time, stall_s, lane_idle_s (worker after
// worker), path_report, event_times, cpu_user_s, cpu_sys_s, cpu_efficiency,
// monitor, and threads (the workers', summed: those that ran at once); and
// memory.workers and activity.workers [{part, interval_s, samples}], each
// worker's RSS and activity samples with their times on the job's clock.
void addMergedFigures(nlohmann::json& report);

// A worker's crash note as its report entry's `crash`: {signal, module
// (its label, "source", or null when no call of the job ran), plugin,
// transition, lane, event ("run:lumi:event", or null), reading (it read a
// file)}.
nlohmann::json crashJson(CrashNote const& note, int signal, JobInfo const& job);

// Adds each crashed worker's crash to the entry of the module it names in
// the report's merged `modules`: crashes [{part, pid, signal, transition,
// lane, event}]; a module that no finished part reported gets an entry of
// zero figures for it (`job`'s). After addMergedFigures().
void listCrashesUnderTheirModules(nlohmann::json& report, JobInfo const& job);

// Each worker's largest RSS sample, then the merged figures' analysis
// (RunReport::printAnalysis, folded to `rows`), when a part finished.
void printMergedFigures(nlohmann::json const& report, std::ostream& out, SummaryRows rows);

}  // namespace lanes::node
