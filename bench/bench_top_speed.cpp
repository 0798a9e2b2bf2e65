// (a) The framework's own limit: an empty source, no waiters, a dummy output.
// Prints events/s with and without the monitor at bench::scalingPoints()
// (1 and 2 threads, and the machine's threads with 2x and 4x as many lanes),
// with the cost per event per thread.
//   build/bin/bench_top_speed [EVENTS]

#include "Measure.h"

int main(int argc, char** argv) {
  using namespace lanes;
  std::uint64_t const events = argc > 1 ? std::stoull(argv[1]) : 5'000'000;
  nlohmann::json runs = nlohmann::json::array();
  for (auto const [threads, lanes] : bench::scalingPoints()) {
    for (bool monitored : {false, true}) {
      JobConfig config;
      config.source = PluginSpec::parse("empty");
      config.outputs.push_back({"out", PluginSpec::parse("dummy"), {}});
      config.threads = threads;
      config.lanes = lanes;
      config.maxEvents = events;
      auto json = bench::toJson(bench::best(config, monitored));
      json["monitored"] = monitored;
      json["ns_per_event"] = 1e9 / json["events_per_s"].get<double>();
      runs.push_back(json);
    }
  }
  std::cout << nlohmann::json{{"benchmark", "top_speed"}, {"target_events_per_s_1_thread", 6e6}, {"runs", runs}}.dump(2)
            << "\n";
}
