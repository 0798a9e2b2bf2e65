// (a) The framework's own limit: an empty source, no waiters, a dummy output.
// Prints events/s at 1 and 2 threads, with and without the monitor.
//   build/bin/bench_top_speed [EVENTS]

#include "Measure.h"

int main(int argc, char** argv) {
  using namespace lanes;
  std::uint64_t const events = argc > 1 ? std::stoull(argv[1]) : 5'000'000;
  nlohmann::json runs = nlohmann::json::array();
  for (unsigned threads : {1u, 2u}) {
    for (bool monitored : {false, true}) {
      JobConfig config;
      config.source = PluginSpec::parse("empty");
      config.outputs.push_back({"out", PluginSpec::parse("dummy"), {}});
      config.threads = threads;
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
