#pragma once
// A prediction in the shape of a run report (the same keys, so that `lanes
// report` draws it and `lanes compare` sets it beside a measured run), with
// a `model` section that says what was predicted from what:
//
//   model: {predicted: true, input {report, threads, lanes, processes, events,
//   events_per_s, cpu_s}, trace {path, events} or null, layout {threads, lanes, processes, cores, devices,
//   events, distribution, chunk, seed, wake_latency_s}, overhead_per_call_s, simulation_s,
//   resources [{name, kind, capacity, utilization, caps_events_per_s,
//   held, wait_s, saturated} (ResourceUse; the saturated first, then the
//   most held), bottleneck (the first that is not the threads, or
//   null), boundary_waits {source_s}, curve {axis, points [{threads, lanes,
//   processes, events_per_s, cpu_efficiency, busiest, held, saturated}]},
//   saturation {name, kind, threads, lanes, processes, held} or null,
//   measured [{threads, lanes, processes, events_per_s, report}]}

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/model/Menu.h"
#include "lanes/model/Prediction.h"
#include "lanes/monitor/RunReport.h"

namespace lanes::model {

// A resource this busy or more has saturated: the rate cannot grow past it.
inline constexpr double kSaturated = 0.9;

// Immutable value type: what a prediction says beyond a run report's figures.
struct ModelInput {
  std::string report;               // the measured report's path
  std::string trace;                // its trace's, if read (Menu::recorded)
  std::vector<Prediction> curve;    // the predictions along the varied axis (may be empty)
  std::string axis;                 // threads, lanes or processes; empty without a curve
  std::vector<MeasuredPoint> measured;
};

// The prediction's figures under a run report's keys (its provenance left
// for the caller: the `lanes model` command's), with the `model` section.
RunReport predictedReport(Menu const& menu, Prediction const& prediction, ModelInput const& input);

// The busiest resource that is not the threads themselves (a saturated one
// before any other); nullptr if none.
ResourceUse const* bottleneck(Prediction const& prediction);

// Along a curve (ordered by the varied axis), the first point at which a
// resource other than the threads saturates (ResourceUse::saturated), and the resource.
struct Saturation {
  std::size_t point = 0;
  ResourceUse resource;
};
std::optional<Saturation> firstSaturation(std::vector<Prediction> const& curve);

}  // namespace lanes::model
