#pragma once
// `--trace` of a multi-process job: every process records its part (the
// parent's events before the fork, each worker's share) at
// partPath(trace, part); the parent merges them into the one trace asked for
// (lanes/monitor/TraceMerge.h) and removes them.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/monitor/TraceMerge.h"

namespace lanes::cli {

// Merges the parts that the job's `report` (node::runMultiProcess()'s) names
// into `trace`, with the parent's work; `originNs` is the parent's start on
// the monotonic clock. A trace that cannot be written fails the job (in
// `report`); an aborted job leaves none. The parts are removed in every case.
void finishJobTrace(std::string const& trace, nlohmann::json& report, std::int64_t originNs,
                    std::vector<TraceSlice> const& parentWork);

}  // namespace lanes::cli
