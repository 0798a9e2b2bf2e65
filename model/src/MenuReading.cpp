#include <algorithm>
#include <cmath>
#include <map>

#include "lanes/core/Exception.h"
#include "lanes/model/Menu.h"

namespace lanes::model {

namespace {

using nlohmann::json;

[[noreturn]] void refuse(std::string const& name, std::string const& why) { throw Exception(name + " " + why); }

// The reports whose schedule and call times are read: the report's own, or
// its workers' (a multi-process report merges neither).
std::vector<json const*> partsOf(json const& report, std::string const& name) {
  if (report.contains("schedule") && report.contains("call_times")) return {&report};
  std::vector<json const*> parts;
  auto const workers = report.find("workers");
  if (workers == report.end() || !workers->is_array()) refuse(name, "has no schedule and call times: it was written by a lanes older than `lanes model`; run the job again to model it");
  for (auto const& worker : *workers) {
    auto const* part = worker.contains("report") ? &worker["report"] : nullptr;
    if (part && part->is_object() && part->contains("schedule") && part->contains("call_times")) parts.push_back(part);
  }
  if (parts.empty()) {
    refuse(name, "has no schedule and call times: it was written by a lanes older than `lanes model`; run the job "
                 "again to model it");
  }
  return parts;
}

// A call_times entry: [first, counts...] in `perOctave` buckets to an octave (LogHistogram::toCompactJson).
Buckets bucketsOf(json const& times, char const* key, int perOctave, std::string const& name) {
  Buckets buckets;
  buckets.perOctave = perOctave;
  if (!times.is_object() || !times.contains(key)) return buckets;
  auto const& entry = times[key];
  auto const whole = [](json const& value) { return value.is_number_integer(); };
  if (!entry.is_array() || !std::all_of(entry.begin(), entry.end(), whole)) {
    refuse(name, std::string("is damaged: call_times ") + key + " is not [first, counts...]");
  }
  for (std::size_t i = 1; i < entry.size(); ++i) {
    if (entry[i].get<std::int64_t>() < 0) refuse(name, std::string("is damaged: call_times ") + key + " has a negative count");
    if (auto const n = entry[i].get<std::uint64_t>()) buckets.add(entry[0].get<int>() + static_cast<int>(i) - 1, n);
  }
  return buckets;
}

// The histograms of one module (or of the source), over every part.
struct Histograms {
  Buckets event, acquire, announce, external;
};

Histograms histogramsOf(std::vector<json const*> const& parts, std::string const& name, bool source,
                        std::size_t module) {
  Histograms merged;
  for (auto const* part : parts) {
    auto const& times = (*part)["call_times"];
    auto const perOctave = times.value("buckets_per_octave", 0);
    if (perOctave <= 0 || LogHistogram::kBucketsPerOctave % perOctave != 0) {
      refuse(name, "is damaged: call_times.buckets_per_octave is not a divisor of 64");
    }
    auto const* entry = source ? &times["source"] : nullptr;
    if (!source) {
      auto const& modules = times["modules"];
      if (!modules.is_array() || module >= modules.size()) refuse(name, "is damaged: call_times has fewer modules than the job");
      entry = &modules[module];
    }
    merged.event.merge(bucketsOf(*entry, source ? "next" : "event", perOctave, name));
    merged.acquire.merge(bucketsOf(*entry, source ? "read" : "acquire", perOctave, name));
    merged.announce.merge(bucketsOf(*entry, "product_ready", perOctave, name));
    merged.external.merge(bucketsOf(*entry, "external", perOctave, name));
    for (auto* buckets : {&merged.event, &merged.acquire, &merged.announce, &merged.external}) buckets->perOctave = perOctave;
  }
  return merged;
}

// Each transition's distribution, scaled so that together they give the
// report's exact total (a sampled job's histograms hold its timed calls only).
void setCosts(Histograms const& histograms, double total, std::uint64_t calls, Distribution& event,
              Distribution& acquire, Distribution& announce) {
  auto const timedCalls = histograms.event.total + histograms.acquire.total;
  auto const sum = histograms.event.summed() + histograms.acquire.summed() + histograms.announce.summed();
  if (timedCalls == 0 || !(sum > 0)) {
    event = Distribution::constant(calls ? total / static_cast<double>(calls) : 0.0);
    return;
  }
  auto const perTimed = static_cast<double>(calls) / static_cast<double>(timedCalls);
  auto const scale = total / (sum * perTimed);
  auto const meanOf = [&](Buckets const& buckets) {
    return buckets.total ? scale * buckets.summed() / static_cast<double>(buckets.total) : 0.0;
  };
  event = Distribution::measured(histograms.event, meanOf(histograms.event));
  acquire = Distribution::measured(histograms.acquire, meanOf(histograms.acquire));
  announce = Distribution::measured(histograms.announce, meanOf(histograms.announce));
}

// The share of the events it saw that each module accepted, from the path report.
std::map<std::string, double> acceptances(json const& report) {
  std::map<std::string, std::pair<double, double>> counts;  // label: visited, accepted
  auto const paths = report.value("path_report", json::object()).value("paths", json::array());
  for (auto const& path : paths) {
    for (auto const& module : path.value("modules", json::array())) {
      auto& [visited, accepted] = counts[module.value("label", std::string())];
      visited += module.value("visited", 0.0);
      accepted += module.value("accepted", 0.0);
    }
  }
  std::map<std::string, double> shares;
  for (auto const& [label, count] : counts) shares[label] = count.first > 0 ? count.second / count.first : 1.0;
  return shares;
}

Strategy strategyNamed(std::string const& text, std::string const& name) {
  for (auto strategy : {Strategy::SyncSingle, Strategy::SyncMulti, Strategy::ExternalWorker,
                        Strategy::ExternalWorkerD2H, Strategy::WaitingPool}) {
    if (text == toString(strategy)) return strategy;
  }
  refuse(name, "is damaged: accel.strategy '" + text + "' is no strategy lanes knows");
}

DeviceSettings deviceSettings(json const& report, std::string const& name) {
  auto const accel = report.value("accel", json());
  if (!accel.is_object()) refuse(name, "has accelerator modules on a device but no accel section: run the job again to model it");
  auto const backend = accel.value("backend", std::string());
  if (backend != "emulated") {
    refuse(name, "ran its accelerator modules on the '" + backend + "' device: `lanes model` models the emulated one "
                 "only (run the job with --accel emulated, or none)");
  }
  DeviceSettings settings;
  settings.strategy = strategyNamed(accel.value("strategy", std::string()), name);
  settings.slots = accel.value("slots", settings.slots);
  settings.hostToDeviceBytesPerS = accel.value("h2d_bytes_per_s", settings.hostToDeviceBytesPerS);
  settings.deviceToHostBytesPerS = accel.value("d2h_bytes_per_s", settings.deviceToHostBytesPerS);
  settings.launchSeconds = accel.value("launch_s", settings.launchSeconds);
  settings.maxQueues = settings.strategy == Strategy::SyncSingle ? 1 : accel.value("max_queues", 0u);
  settings.waitingThreads = accel.value("waiting_threads", settings.waitingThreads);
  return settings;
}

std::optional<DeviceWork> deviceWorkOf(json const& details) {
  if (!details.is_object() || !details.contains("device")) return std::nullopt;
  auto const& device = details["device"];
  DeviceWork work;
  work.kernelSeconds = device.value("kernel_s", 0.0);
  work.copiesToDevice = static_cast<unsigned>(std::lround(device.value("copies_to_device", 0.0)));
  work.toDeviceBytes = device.value("to_device_bytes", 0.0);
  work.toHost = device.value("to_host", false);
  work.toHostBytes = device.value("to_host_bytes", 0.0);
  return work;
}

// Its producers in the scheduler's order, then each source product it consumes (the order among those does
// not change the timing: a source product is ready, or claimed for a batch, at once).
std::vector<Prerequisite> prerequisitesOf(json const& scheduled, std::size_t modules, std::string const& name) {
  std::vector<Prerequisite> prerequisites;
  auto const after = scheduled.value("after", std::vector<unsigned>());
  auto const announced = scheduled.value("announced", std::vector<unsigned>(after.size(), 0));
  if (announced.size() != after.size()) refuse(name, "is damaged: schedule's announced and after differ in number");
  for (std::size_t k = 0; k < after.size(); ++k) {
    if (after[k] >= modules) refuse(name, "is damaged: a prerequisite names no module");
    prerequisites.push_back({false, after[k], announced[k]});
  }
  bool const told = scheduled.value("product_ready", false);
  for (auto const& run : scheduled.value("source", json::array())) {
    auto const whole = [](json const& value) { return value.is_number_integer() && value.get<std::int64_t>() >= 0; };
    if (!run.is_array() || run.size() != 2 || !whole(run[0]) || !whole(run[1])) {
      refuse(name, "is damaged: schedule's source runs are not [first, count]");
    }
    for (unsigned p = 0; p < run[1].get<unsigned>(); ++p) prerequisites.push_back({true, run[0].get<unsigned>() + p, told ? 1u : 0u});
  }
  return prerequisites;
}

MenuModule moduleOf(json const& entry, json const& scheduled, Histograms const& histograms,
                    std::map<std::string, double> const& accepted) {
  MenuModule module;
  module.label = entry.value("label", std::string());
  module.plugin = entry.value("plugin", std::string());
  module.kind = entry.value("kind", std::string());
  module.concurrency = entry.value("concurrency", std::string());
  module.limit = module.concurrency == "one" ? 1 : module.concurrency == "limited" ? scheduled.value("limit", 1u) : 0;
  module.externalWork = scheduled.value("external_work", false);
  module.productReady = scheduled.value("product_ready", false);
  module.output = module.kind == "output";
  auto const details = entry.value("details", json());
  module.sleeps = details.is_object() && details.value("work", std::string()) == "sleep";
  if (auto it = accepted.find(module.label); it != accepted.end()) module.acceptance = it->second;
  setCosts(histograms, entry.value("total_s", 0.0), entry.value("calls", std::uint64_t{0}), module.event,
           module.acquire, module.announce);
  auto const& external = histograms.external;
  double const externalMean = external.total ? external.summed() / static_cast<double>(external.total) : 0.0;
  module.external = Distribution::measured(external, externalMean);
  if (details.is_object() && details.value("backend", std::string("none")) != "none") module.device = deviceWorkOf(details);
  return module;
}

std::uint64_t sourceCalls(json const& report) {
  return report.value("events", std::uint64_t{0}) + report.value("events_skipped", std::uint64_t{0});
}

}  // namespace

MeasuredPoint measuredPoint(json const& report, std::string const& path) {
  MeasuredPoint point;
  auto const workers = report.value("workers", json::array());
  // A multi-process report sums its workers' threads and lanes.
  auto const& perProcess = !workers.empty() && workers[0].contains("report") ? workers[0]["report"] : report;
  point.threads = perProcess.value("threads", 1u);
  point.lanes = perProcess.value("lanes", point.threads);
  point.processes = report.value("processes", workers.empty() ? 1u : static_cast<unsigned>(workers.size()));
  point.events = report.value("events", std::uint64_t{0});
  point.eventsPerSecond = report.value("events_per_s", 0.0);
  point.cpuSeconds = report.value("cpu_user_s", 0.0) + report.value("cpu_sys_s", 0.0);
  point.report = path;
  return point;
}

char const* toString(Strategy strategy) {
  switch (strategy) {
    case Strategy::SyncSingle: return "sync-single";
    case Strategy::SyncMulti: return "sync-multi";
    case Strategy::ExternalWorker: return "external-worker";
    case Strategy::ExternalWorkerD2H: return "external-worker-d2h";
    case Strategy::WaitingPool: return "waiting-pool";
  }
  return "?";
}

Menu readMenu(json const& report, std::string const& name) {
  if (!report.is_object() || !report.contains("events_per_s") || !report.contains("wall_s")) {
    refuse(name, "is not a lanes run report (no events_per_s and wall_s)");
  }
  if (report.value("failed", false)) {
    refuse(name, "is the report of a job that failed (" + report.value("error", std::string()) +
                 "): a failed job's figures are not a whole run's");
  }
  if (report.value("events", std::uint64_t{0}) == 0) refuse(name, "is the report of a job that processed no events: nothing to model");
  auto const parts = partsOf(report, name);
  auto const& schedule = (*parts.front())["schedule"];
  auto const modules = report.value("modules", json::array());
  auto const scheduled = schedule.value("modules", json::array());
  if (!modules.is_array() || modules.size() != scheduled.size()) refuse(name, "is damaged: its schedule and its modules differ in number");

  Menu menu;
  auto const accepted = acceptances(report);
  for (std::size_t m = 0; m < modules.size(); ++m) {
    menu.modules.push_back(moduleOf(modules[m], scheduled[m], histogramsOf(parts, name, false, m), accepted));
    menu.modules.back().prerequisites = prerequisitesOf(scheduled[m], modules.size(), name);
  }
  for (auto const& path : schedule.value("paths", json::array())) {
    menu.paths.push_back({path.value("name", std::string()), path.value("modules", std::vector<unsigned>())});
  }
  for (auto const& output : schedule.value("outputs", json::array())) {
    menu.outputs.push_back({output.value("module", 0u), output.value("select", std::vector<unsigned>())});
  }
  for (auto const& path : menu.paths) {
    for (auto m : path.modules) {
      if (m >= menu.modules.size()) refuse(name, "is damaged: a path names no module");
    }
  }
  for (auto const& output : menu.outputs) {
    if (output.module >= menu.modules.size()) refuse(name, "is damaged: an output names no module");
    for (auto p : output.select) {
      if (p >= menu.paths.size()) refuse(name, "is damaged: an output selects no path");
    }
  }

  auto const source = schedule.value("source", json::object());
  menu.replicatedSource = source.value("replicated", true);
  auto const reads = source.value("reads", std::string("inline"));
  menu.sourceReads = reads == "batched" ? SourceReads::Batched : reads == "with-the-event" ? SourceReads::WithTheEvent
                                                                                          : SourceReads::Inline;
  Distribution unused;
  setCosts(histogramsOf(parts, name, true, 0), report.value("source_s", 0.0), sourceCalls(report), menu.sourceNext,
           menu.sourceRead, unused);
  for (auto const& module : menu.modules) {
    for (auto const& prerequisite : module.prerequisites) {
      if (!prerequisite.fromSource) continue;
      if (menu.sourceConsumers.size() <= prerequisite.index) menu.sourceConsumers.resize(prerequisite.index + 1, 0);
      ++menu.sourceConsumers[prerequisite.index];
    }
  }
  if (std::any_of(menu.modules.begin(), menu.modules.end(), [](auto const& m) { return m.device.has_value(); })) {
    menu.device = deviceSettings(report, name);
    for (auto const& module : modules) {
      auto const details = module.value("details", json());
      if (details.is_object() && details.contains("device")) {
        menu.device->sleepOvershoot = std::max(0.0, details["device"].value("sleep_overshoot_s", 0.0));
      }
    }
  }

  double busy = report.value("source_s", 0.0);
  std::uint64_t calls = sourceCalls(report);
  for (std::size_t m = 0; m < modules.size(); ++m) {
    calls += modules[m].value("calls", std::uint64_t{0});
    if (!menu.modules[m].sleeps) busy += modules[m].value("total_s", 0.0);
  }
  auto const cpu = report.value("cpu_user_s", 0.0) + report.value("cpu_sys_s", 0.0);
  auto const overhead = calls ? std::max(0.0, cpu - busy) / static_cast<double>(calls) : 0.0;
  menu.overheadPerCall = std::min(overhead, kMaxOverheadPerCall);

  menu.measured = measuredPoint(report, name);
  menu.provenance = report.value("provenance", json());
  return menu;
}

}  // namespace lanes::model
