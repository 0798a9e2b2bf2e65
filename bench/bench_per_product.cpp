// (b) Per-product overhead: a synthetic source with 1000 products of the
// NanoAOD profile, no waiters, a dummy output that consumes them all.
// The cost per product is the time per event beyond an event without
// products (bench_top_speed's job), divided by the products. Runs at
// bench::scalingPoints(); the ns are thread-seconds, so figures that stay flat
// from 1 thread up mean perfect scaling.
//   build/bin/bench_per_product [EVENTS]

#include "Measure.h"

int main(int argc, char** argv) {
  using namespace lanes;
  std::uint64_t const events = argc > 1 ? std::stoull(argv[1]) : 50'000;
  constexpr int kProducts = 1000;
  nlohmann::json runs = nlohmann::json::array();
  for (auto const [threads, lanes] : bench::scalingPoints()) {
    for (bool ready : {false, true}) {
      auto job = [&](std::string const& source) {
        JobConfig config;
        config.source = PluginSpec::parse(source);
        config.outputs.push_back({"out", PluginSpec::parse(ready ? "dummy:ready=true" : "dummy"), {}});
        config.threads = threads;
        config.lanes = lanes;
        config.maxEvents = events;
        return config;
      };
      auto const empty = bench::best(job("empty"), false);
      auto const full = bench::best(
          job("synthetic:profile=" LANES_SOURCE_DIR "/data/profiles/nanoaod.json,count=" + std::to_string(kProducts)),
          false);
      double const perEvent = full.wallSeconds / full.events * threads;
      double const perEmptyEvent = empty.wallSeconds / empty.events * threads;
      auto json = bench::toJson(full);
      json["products"] = kProducts;
      json["product_ready_calls"] = ready;
      json["ns_per_product"] = perEvent / kProducts * 1e9;
      json["ns_per_product_beyond_empty_event"] = (perEvent - perEmptyEvent) / kProducts * 1e9;
      runs.push_back(json);
    }
  }
  std::cout << nlohmann::json{{"benchmark", "per_product"},
                              {"note", "ns are thread-seconds per product (wall x threads / products / events)"},
                              {"target_ns_per_product", 20},
                              {"runs", runs}}
                   .dump(2)
            << "\n";
}
