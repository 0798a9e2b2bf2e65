#include "lanes/model/PredictionReport.h"

#include <algorithm>

namespace lanes::model {

namespace {

using nlohmann::json;

json pathsJson(Menu const& menu, Prediction const& prediction) {
  auto paths = json::array();
  for (std::size_t p = 0; p < menu.paths.size(); ++p) {
    auto const& counts = prediction.paths[p];
    auto const& modules = menu.paths[p].modules;
    std::uint64_t rejected = 0;
    for (auto r : counts.rejectedAt) rejected += r;
    auto const row = [](std::uint64_t accepted, std::uint64_t rejectedHere) {
      return json{{"visited", accepted + rejectedHere}, {"accepted", accepted}, {"rejected", rejectedHere}, {"failed", 0}};
    };
    auto path = row(counts.accepted, rejected);
    path["name"] = menu.paths[p].name;
    // The events that got past step s: accepted, or stopped further on (PathStatistics).
    std::uint64_t beyond = counts.accepted;
    std::vector<json> rows(modules.size());
    for (std::size_t s = modules.size(); s-- > 0;) {
      rows[s] = row(beyond, counts.rejectedAt[s]);
      rows[s]["label"] = menu.modules[modules[s]].label;
      beyond += counts.rejectedAt[s];
    }
    path["modules"] = rows;
    paths.push_back(std::move(path));
  }
  return paths;
}

json eventTimesJson(Prediction const& prediction) {
  auto const& histogram = prediction.eventTimes;
  auto const at = [&](double fraction) { return std::min(histogram.percentile(fraction), prediction.longestEvent); };
  return {{"events", histogram.count()}, {"median_s", at(0.5)},       {"p90_s", at(0.9)},
          {"p99_s", at(0.99)},            {"max_s", prediction.longestEvent}, {"slowest", json::array()},
          {"histogram", histogram.toJson()}};
}

double threadSeconds(Prediction const& prediction) {
  for (auto const& resource : prediction.resources) {
    if (resource.kind == "threads") return resource.busySeconds;
  }
  return 0;
}

ThreadTime threadTimeOf(RunReport const& report, Prediction const& prediction) {
  ThreadTime time;
  time.totalSeconds = prediction.layout.totalThreads() * prediction.wallSeconds;
  for (auto const& module : report.modules) {
    if (module.kind != "output") time.modulesSeconds += module.totalSeconds;
  }
  time.sourceSeconds = prediction.sourceSeconds;
  time.outputsSeconds = prediction.outputsSeconds;
  auto const busy = threadSeconds(prediction);
  auto const calls = time.modulesSeconds + time.sourceSeconds + time.outputsSeconds;
  time.overheadSeconds = std::max(0.0, busy - calls);
  time.idleSeconds = std::max(0.0, time.totalSeconds - busy);
  return time;
}

json layoutJson(Layout const& layout) {
  return {{"threads", layout.threads},
          {"lanes", layout.lanesPerProcess()},
          {"processes", layout.processes},
          {"cores", layout.totalCores()},
          {"devices", layout.devices ? layout.devices : layout.processes},
          {"events", layout.events},
          {"distribution", layout.roundRobin ? "round-robin" : "queue"},
          {"chunk", layout.chunk},
          {"seed", layout.seed},
          {"wake_latency_s", layout.wakeLatency}};
}

json resourceJson(ResourceUse const& resource, Prediction const& prediction) {
  auto const wall = prediction.wallSeconds;
  auto const utilization = resource.utilization(wall);
  return {{"name", resource.name},
          {"kind", resource.kind},
          {"capacity", resource.capacity},
          {"utilization", utilization},
          {"held", resource.held(wall)},
          {"wait_s", resource.waitSeconds},
          {"saturated", resource.saturated(wall, kSaturated)},
          {"caps_events_per_s", utilization > 0 ? json(prediction.eventsPerSecond() / utilization) : json()}};
}

// Saturated ones first, then by how much of the time they were held.
std::vector<ResourceUse const*> busiestFirst(Prediction const& prediction) {
  std::vector<ResourceUse const*> resources;
  for (auto const& resource : prediction.resources) resources.push_back(&resource);
  auto const wall = prediction.wallSeconds;
  std::stable_sort(resources.begin(), resources.end(), [&](auto const* a, auto const* b) {
    auto const saturatedA = a->saturated(wall, kSaturated), saturatedB = b->saturated(wall, kSaturated);
    if (saturatedA != saturatedB) return saturatedA;
    return a->held(wall) > b->held(wall);
  });
  return resources;
}

json pointJson(Prediction const& prediction) {
  auto const* busiest = bottleneck(prediction);
  return {{"threads", prediction.layout.threads},
          {"lanes", prediction.layout.lanesPerProcess()},
          {"processes", prediction.layout.processes},
          {"events_per_s", prediction.eventsPerSecond()},
          {"cpu_efficiency", prediction.cpuEfficiency()},
          {"busiest", busiest ? json(busiest->name) : json()},
          {"held", busiest ? busiest->held(prediction.wallSeconds) : 0.0},
          {"saturated", busiest && busiest->saturated(prediction.wallSeconds, kSaturated)}};
}

json measuredJson(MeasuredPoint const& point) {
  return {{"threads", point.threads},
          {"lanes", point.lanes},
          {"processes", point.processes},
          {"events", point.events},
          {"events_per_s", point.eventsPerSecond},
          {"cpu_s", point.cpuSeconds},
          {"report", point.report}};
}

json modelJson(Menu const& menu, Prediction const& prediction, ModelInput const& input) {
  auto resources = json::array();
  for (auto const* resource : busiestFirst(prediction)) resources.push_back(resourceJson(*resource, prediction));
  auto const* busiest = bottleneck(prediction);
  auto points = json::array();
  for (auto const& point : input.curve) points.push_back(pointJson(point));
  json saturation;
  if (auto first = firstSaturation(input.curve)) {
    auto const& layout = input.curve[first->point].layout;
    saturation = {{"name", first->resource.name},
                  {"kind", first->resource.kind},
                  {"threads", layout.threads},
                  {"lanes", layout.lanesPerProcess()},
                  {"processes", layout.processes},
                  {"held", first->resource.held(input.curve[first->point].wallSeconds)}};
  }
  auto measured = json::array();
  for (auto const& point : input.measured) measured.push_back(measuredJson(point));
  double sourceWait = 0;
  for (auto idle : prediction.laneIdleSeconds) sourceWait += idle;
  auto const trace = input.trace.empty() ? json() : json{{"path", input.trace}, {"events", menu.recorded.size()}};
  return {{"predicted", true},
          {"input", measuredJson(menu.measured)},
          {"trace", trace},
          {"layout", layoutJson(prediction.layout)},
          {"overhead_per_call_s", menu.overheadPerCall},
          {"simulation_s", prediction.simulationSeconds},
          {"resources", resources},
          {"bottleneck", busiest ? resourceJson(*busiest, prediction) : json()},
          {"boundary_waits", {{"source_s", sourceWait}}},
          {"curve", {{"axis", input.axis}, {"points", points}}},
          {"saturation", saturation},
          {"measured", measured}};
}

}  // namespace

ResourceUse const* bottleneck(Prediction const& prediction) {
  for (auto const* resource : busiestFirst(prediction)) {
    if (resource->kind != "threads") return resource;
  }
  return nullptr;
}

std::optional<Saturation> firstSaturation(std::vector<Prediction> const& curve) {
  for (std::size_t p = 0; p < curve.size(); ++p) {
    auto const* busiest = bottleneck(curve[p]);
    if (busiest && busiest->saturated(curve[p].wallSeconds, kSaturated)) return Saturation{p, *busiest};
  }
  return std::nullopt;
}

RunReport predictedReport(Menu const& menu, Prediction const& prediction, ModelInput const& input) {
  RunReport report;
  auto const& layout = prediction.layout;
  report.threads = layout.totalThreads();
  report.lanes = layout.lanesPerProcess() * layout.processes;
  report.events = prediction.events;
  report.wallSeconds = prediction.wallSeconds;
  report.eventsPerSecond = prediction.eventsPerSecond();
  report.cpuUserSeconds = prediction.cpuSeconds;
  report.cpuEfficiency = prediction.cpuEfficiency();
  for (std::size_t m = 0; m < menu.modules.size(); ++m) {
    auto const& module = menu.modules[m];
    auto const& predicted = prediction.modules[m];
    report.modules.push_back({module.label, module.plugin, module.kind, module.concurrency, predicted.calls,
                              predicted.events, predicted.totalSeconds, predicted.stallSeconds,
                              predicted.externalSeconds, 0.0, nullptr});
    report.stallSeconds += predicted.stallSeconds;
  }
  report.sourceSeconds = prediction.sourceSeconds;
  report.outputsSeconds = prediction.outputsSeconds;
  report.threadTime = threadTimeOf(report, prediction);
  report.laneIdleSeconds = prediction.laneIdleSeconds;
  report.paths = pathsJson(menu, prediction);
  report.eventTimes = eventTimesJson(prediction);
  if (layout.processes > 1) report.sections["processes"] = layout.processes;
  report.sections["model"] = modelJson(menu, prediction, input);
  return report;
}

}  // namespace lanes::model
