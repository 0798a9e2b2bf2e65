#include "ModelCommand.h"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "HtmlReport.h"
#include "JobProvenance.h"
#include "RunCommand.h"
#include "WholeNumber.h"
#include "lanes/core/Exception.h"
#include "lanes/core/Options.h"
#include "lanes/model/PredictionReport.h"
#include "lanes/model/Simulate.h"

namespace lanes::cli {

namespace {

using nlohmann::json;

// The most points a curve may have: a typo's million points would simulate for hours.
constexpr std::size_t kMaxPoints = 64;
constexpr unsigned kMaxCount = 1u << 20;

struct ModelArguments {
  std::string input;
  std::string trace;
  unsigned threads = 0, lanes = 0, processes = 0, cores = 0, devices = 0;
  double wakeLatency = 0;
  std::uint64_t events = 0, chunk = 0, seed = 1;
  std::string distribution;
  std::string vary;
  std::vector<std::string> measured;
  std::string report, html;
  std::string summary = "short";
};

json readReport(std::string const& path) {
  std::ifstream in(path);
  if (!in) throw Exception("cannot read " + path);
  try {
    return json::parse(in);
  } catch (json::parse_error const& error) {
    throw Exception(path + " is not JSON: " + error.what());
  }
}

struct Curve {
  std::string axis;
  std::vector<unsigned> values;
};

Curve parseVary(std::string const& text) {
  auto const bad = [&](std::string const& why) {
    return Exception("--vary '" + shortened(text) + "': " + why + " (e.g. --vary threads=1,2,4,8)");
  };
  auto const equals = text.find('=');
  if (equals == std::string::npos) throw bad("expected AXIS=LIST");
  Curve curve{text.substr(0, equals), {}};
  if (curve.axis != "threads" && curve.axis != "lanes" && curve.axis != "processes") {
    throw bad("the axis must be threads, lanes or processes");
  }
  std::stringstream list(text.substr(equals + 1));
  std::string value;
  while (std::getline(list, value, ',')) {
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || value.size() > 7 ||
        std::stoul(value) == 0 || std::stoul(value) > kMaxCount) {
      throw bad("each value must be a whole number from 1 to " + std::to_string(kMaxCount));
    }
    curve.values.push_back(static_cast<unsigned>(std::stoul(value)));
  }
  if (curve.values.empty()) throw bad("no values");
  if (curve.values.size() > kMaxPoints) throw bad("at most " + std::to_string(kMaxPoints) + " values");
  return curve;
}

// The layout the options give, each unset one taken from the measured run.
model::Layout layoutOf(ModelArguments const& arguments, model::Menu const& menu) {
  model::Layout layout;
  layout.threads = arguments.threads ? arguments.threads : menu.measured.threads;
  layout.lanes = arguments.lanes ? arguments.lanes
                 : arguments.threads ? 0
                                     : menu.measured.lanes;
  layout.processes = arguments.processes ? arguments.processes : menu.measured.processes;
  layout.cores = arguments.cores;
  layout.devices = arguments.devices;
  layout.events = arguments.events ? arguments.events : menu.measured.events;
  layout.roundRobin = arguments.distribution == "round-robin";
  if (arguments.chunk) layout.chunk = arguments.chunk;
  layout.seed = arguments.seed;
  layout.wakeLatency = arguments.wakeLatency;
  return layout;
}

model::Layout pointOf(model::Layout layout, Curve const& curve, unsigned value, bool lanesGiven) {
  if (curve.axis == "threads") {
    layout.threads = value;
    if (!lanesGiven) layout.lanes = 0;  // as many as threads
  } else if (curve.axis == "lanes") {
    layout.lanes = value;
  } else {
    layout.processes = value;
  }
  return layout;
}

// Options that cannot take effect are refused before anything runs.
void refuseWhatDoesNotApply(ModelArguments const& arguments, model::Menu const& menu, Curve const* curve) {
  bool const manyProcesses = (arguments.processes ? arguments.processes : menu.measured.processes) > 1 ||
                             (curve && curve->axis == "processes");
  if (!arguments.distribution.empty() && !manyProcesses) {
    throw Exception("--distribution applies to several processes: give --processes above 1 (or --vary processes=...)");
  }
  if (arguments.chunk && !manyProcesses) throw Exception("--chunk applies to several processes: give --processes above 1");
  if (arguments.chunk && arguments.distribution == "round-robin") {
    throw Exception("--chunk applies to the queue distribution, not round-robin");
  }
  if (arguments.devices && !menu.device) {
    throw Exception("--devices applies to accelerator modules run on the emulated device; " + arguments.input +
                    " has none");
  }
  if (curve && curve->axis == "lanes" && arguments.lanes) throw Exception("--lanes and --vary lanes=... both set the lanes");
  if (curve && curve->axis == "processes" && arguments.processes) {
    throw Exception("--processes and --vary processes=... both set the processes");
  }
}

std::string fixed(double value, int decimals) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << value;
  return text.str();
}

std::string percent(double share) { return fixed(100 * share, 1) + "%"; }

std::string layoutText(model::Layout const& layout) {
  auto text = std::to_string(layout.threads) + " threads, " + std::to_string(layout.lanesPerProcess()) + " lanes";
  if (layout.processes > 1) text += ", " + std::to_string(layout.processes) + " processes";
  return text + ", " + std::to_string(layout.totalCores()) + " cores";
}

// "dqm (one, 1 at once): its calls 9.1% busy, its slot held 98.0% (saturated)".
std::string resourceText(model::ResourceUse const& resource, model::Prediction const& prediction) {
  auto const wall = prediction.wallSeconds;
  auto text = resource.name + " (" + resource.kind + ", " + std::to_string(resource.capacity) + " at once): " +
              percent(resource.utilization(wall)) + " busy";
  if (resource.queues) text += ", its slots held " + percent(resource.held(wall));
  if (resource.saturated(wall, model::kSaturated)) text += " (saturated)";
  return text;
}

void printHeadline(model::Menu const& menu, model::Prediction const& prediction, std::ostream& out) {
  auto const& measured = menu.measured;
  out << "lanes model: " << measured.report << " measured " << fixed(measured.eventsPerSecond, 1) << " events/s  ["
      << measured.threads << " threads, " << measured.lanes << " lanes"
      << (measured.processes > 1 ? ", " + std::to_string(measured.processes) + " processes" : "") << "]\n";
  out << "  predicted " << fixed(prediction.eventsPerSecond(), 1) << " events/s  [" << layoutText(prediction.layout)
      << "]: " << prediction.events << " events in " << fixed(prediction.wallSeconds, 3) << " s\n";
  out << "  CPU " << fixed(prediction.cpuSeconds, 3) << " s = " << percent(prediction.cpuEfficiency()) << " of "
      << prediction.layout.totalThreads() << " threads (" << fixed(1e6 * menu.overheadPerCall, 2)
      << " us a call between calls, as measured; an idle thread takes " << fixed(1e6 * prediction.layout.wakeLatency, 1)
      << " us to take a task another spawned)\n";
  if (auto const* busiest = model::bottleneck(prediction)) out << "  busiest: " << resourceText(*busiest, prediction) << "\n";
  out << "  simulated in " << fixed(prediction.simulationSeconds, 3) << " s\n";
}

void printCurve(model::ModelInput const& input, std::ostream& out) {
  if (input.curve.empty()) return;
  out << "\n  " << std::right << std::setw(9) << "threads" << std::setw(8) << "lanes" << std::setw(11) << "processes"
      << std::setw(13) << "events/s" << std::setw(10) << "CPU eff." << "  busiest\n";
  for (auto const& point : input.curve) {
    auto const* busiest = model::bottleneck(point);
    out << "  " << std::setw(9) << point.layout.threads << std::setw(8) << point.layout.lanesPerProcess() << std::setw(11)
        << point.layout.processes << std::setw(13) << fixed(point.eventsPerSecond(), 1) << std::setw(10)
        << percent(point.cpuEfficiency()) << "  "
        << (busiest ? resourceText(*busiest, point) : "") << "\n";
  }
  if (auto first = model::firstSaturation(input.curve)) {
    auto const& layout = input.curve[first->point].layout;
    out << "  first to saturate: " << first->resource.name << " (" << first->resource.kind << "), at "
        << layout.threads << " threads, " << layout.lanesPerProcess() << " lanes, " << layout.processes << " processes\n";
  } else {
    out << "  nothing saturates along the curve (held " << percent(model::kSaturated) << " of the time, by calls that waited for it)\n";
  }
}

int model(ModelArguments const& arguments) {
  auto menu = model::readMenu(readReport(arguments.input), arguments.input);
  if (!arguments.trace.empty()) model::readTrace(menu, arguments.trace);
  std::optional<Curve> curve;
  if (!arguments.vary.empty()) curve = parseVary(arguments.vary);
  refuseWhatDoesNotApply(arguments, menu, curve ? &*curve : nullptr);
  model::ModelInput input{arguments.input, arguments.trace, {}, curve ? curve->axis : "", {}};
  for (auto const& path : arguments.measured) {
    auto const report = readReport(path);
    if (!report.is_object() || !report.contains("events_per_s")) throw Exception(path + " is not a lanes run report");
    input.measured.push_back(model::measuredPoint(report, path));
  }
  auto const layout = layoutOf(arguments, menu);
  auto const provenance = jobProvenance("");
  auto const prediction = model::simulate(menu, layout);
  if (curve) {
    for (auto value : curve->values) input.curve.push_back(model::simulate(menu, pointOf(layout, *curve, value, arguments.lanes != 0)));
  }
  auto report = model::predictedReport(menu, prediction, input);
  report.provenance = provenance;
  printHeadline(menu, prediction, std::cout);
  printCurve(input, std::cout);
  std::cout << "\n";
  report.printAnalysis(std::cout, arguments.summary == "full" ? SummaryRows::all() : SummaryRows{});
  if (!arguments.report.empty()) report.writeJson(arguments.report);
  RunArguments page;
  page.html = arguments.html;
  page.report = arguments.report;
  return writeHtmlReport(page, report.toJson(), 0, "model");
}

}  // namespace

void addModelCommand(CLI::App& app, int& exitCode) {
  auto arguments = std::make_shared<ModelArguments>();
  auto* command = app.add_subcommand(
      "model", "Predict a menu's rate at other thread, lane and process counts from a run's report (an event-driven "
               "simulation of lanes' own scheduling, drawing each call's time from what the run measured)");
  auto const count = wholeNumber(1, kMaxCount);
  command->add_option("report", arguments->input, "The run's report (lanes run --report)")->required();
  command->add_option("--trace", arguments->trace,
                      "The run's trace (lanes run --trace): each event's calls replayed together, instead of each "
                      "call's time drawn on its own");
  command->add_option("-t,--threads", arguments->threads, "Threads per process (default: the run's)")->check(count);
  command->add_option("-l,--lanes", arguments->lanes,
                      "Events in flight per process (default: as many as threads when -t is given, else the run's)")
      ->check(count);
  command->add_option("-p,--processes", arguments->processes, "Processes (default: the run's)")->check(count);
  command->add_option("--distribution", arguments->distribution,
                      "How processes share events: queue (chunks as they become free) or round-robin")
      ->check(CLI::IsMember({"queue", "round-robin"}));
  command->add_option("--chunk", arguments->chunk, "Events a process takes from the queue at a time (default: 10)")
      ->check(count);
  command->add_option("--cores", arguments->cores,
                      "Cores of the node, shared by every process's threads (default: one per thread)")
      ->check(count);
  command->add_option("--devices", arguments->devices,
                      "Emulated devices the processes share, process p on device p mod N (default: one per process)")
      ->check(count);
  command->add_option("--wake-latency", arguments->wakeLatency,
                      "Seconds an idle thread takes to take a task another thread spawned: the OS's and oneTBB's "
                      "wake-up, which a loaded machine makes longer (default: 0)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("-n,--events", arguments->events, "Events to simulate (default: the run's)")
      ->check(wholeNumber(1, std::numeric_limits<std::uint32_t>::max()));
  command->add_option("--vary", arguments->vary,
                      "A curve: AXIS=LIST, the axis threads, lanes or processes, e.g. threads=1,2,4,8,16,32,64 (lanes "
                      "follow threads unless -l is given)");
  command->add_option("--measured", arguments->measured,
                      "A measured run's report to set beside the prediction on the page (repeatable)")
      ->allow_extra_args(false);
  command->add_option("--seed", arguments->seed, "The simulation's random seed (default: 1)")
      ->check(wholeNumber(0, std::numeric_limits<std::int64_t>::max()));
  command->add_option("--report", arguments->report, "Write the prediction as a run report (JSON) to FILE");
  command->add_option("--html", arguments->html, "Write its HTML page (the curve with the measured points) to FILE");
  command->add_option("--summary", arguments->summary, "short (default) or full: how much of the tables is printed")
      ->check(CLI::IsMember({"short", "full"}));
  command->callback([arguments, &exitCode] { exitCode = model(*arguments); });
}

}  // namespace lanes::cli
