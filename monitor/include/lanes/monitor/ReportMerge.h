#pragma once
// The run report of a job run in parts (a multi-process job's workers, and
// the events its parent ran before the fork), merged from the parts' reports
// (RunReport::toJson()) into the figures one report of the whole job gives,
// with the same keys: sums where figures add (the modules by label, source,
// outputs, thread time, stalls, path and output counts, CPU, and the
// monitor's timed records and estimated cost), the lanes' idle
// times part after part, and the event-time distribution from the parts'
// histograms (so its percentiles are within a bucket, 0.55%, of the exact
// ones; its maximum and slowest events are exact).

#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/monitor/RunReport.h"

namespace lanes {

// Figures a part does not have count as zero. threads and lanes are the
// parts' sums, peak_rss_bytes the largest; cpu_efficiency the parts' CPU
// over their thread time (threads x wall, summed); the monitor's ns_per_call
// and ns_per_wait the parts' means weighted by their records. Wall time,
// versions, memory and the modules' details are left for the caller, who
// knows the whole job.
RunReport mergePartReports(std::vector<nlohmann::json const*> const& parts);

}  // namespace lanes
