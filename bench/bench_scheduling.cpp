// (c) Scheduling efficiency: the realistic reconstruction menu (busy CPU
// work in every module) at 1 and 2 threads; CPU efficiency and speed-up.
//   build/bin/bench_scheduling [EVENTS]

#include "../cli/Menu.h"
#include "Measure.h"

int main(int argc, char** argv) {
  using namespace lanes;
  std::uint64_t const events = argc > 1 ? std::stoull(argv[1]) : 200;
  nlohmann::json runs = nlohmann::json::array();
  double rateAtOne = 0;
  for (unsigned threads : {1u, 2u}) {
    JobConfig config;
    cli::loadMenu(LANES_SOURCE_DIR "/examples/reconstruction.toml", config);
    config.threads = threads;
    config.lanes = threads;
    config.maxEvents = events;
    auto const m = bench::best(config, true, 2);
    if (threads == 1) rateAtOne = m.eventsPerSecond();
    auto json = bench::toJson(m);
    json["speedup"] = m.eventsPerSecond() / rateAtOne;
    runs.push_back(json);
  }
  std::cout << nlohmann::json{{"benchmark", "scheduling"},
                              {"menu", "examples/reconstruction.toml"},
                              {"target_cpu_efficiency_2_threads", 0.97},
                              {"runs", runs}}
                   .dump(2)
            << "\n";
}
