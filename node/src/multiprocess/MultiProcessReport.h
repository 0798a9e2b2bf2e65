#pragma once
// The whole job's figures in a multi-process report, merged from its parts'
// run reports (the events before the fork, each finished worker's).

#include <nlohmann/json.hpp>

#include "lanes/monitor/RunReport.h"

namespace lanes::node {

// The parts' reports merged (lanes/monitor/ReportMerge.h).
RunReport mergedFigures(nlohmann::json const& report);

// Adds to a multi-process or MPI report (its workers' or ranks' reports
// under workers[].report), with the keys of a single process's: modules,
// source_s, outputs_s, thread_time, stall_s, lane_idle_s (worker after
// worker), path_report, event_times, cpu_user_s, cpu_sys_s, cpu_efficiency,
// monitor, and threads (the workers', summed: those that ran at once); and
// memory.workers [{part, interval_s, samples}], each worker's RSS samples
// with their times on the job's clock.
void addMergedFigures(nlohmann::json& report);

// Each worker's largest RSS sample, then the merged figures' analysis
// (RunReport::printAnalysis), when a part finished.
void printMergedFigures(nlohmann::json const& report, std::ostream& out);

}  // namespace lanes::node
