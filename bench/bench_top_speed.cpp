// (a) The framework's own limit: an empty source, no waiters, a dummy output.
// At bench::scalingPoints() (1 and 2 threads, and the machine's threads with
// 2x and 4x as many lanes), runs ROUNDS rounds of a job without and a job with
// the monitor (what `lanes run` attaches), alternating which goes first, and
// prints the median, least and most of each figure over the rounds, with the
// monitored rate as a share of the unmonitored one, round by round.
//   build/bin/bench_top_speed [EVENTS] [ROUNDS]

#include <algorithm>

#include "Measure.h"

namespace {

// {median, min, max} of the values.
nlohmann::json spread(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  auto const n = values.size();
  double const median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {{"median", median}, {"min", values.front()}, {"max", values.back()}};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lanes;
  std::uint64_t const events = argc > 1 ? std::stoull(argv[1]) : 5'000'000;
  int const rounds = argc > 2 ? std::stoi(argv[2]) : 5;
  nlohmann::json points = nlohmann::json::array();
  for (auto const [threads, lanes] : bench::scalingPoints()) {
    JobConfig config;
    config.source = PluginSpec::parse("empty");
    config.outputs.push_back({"out", PluginSpec::parse("dummy"), {}});
    config.threads = threads;
    config.lanes = lanes;
    config.maxEvents = events;
    std::vector<double> rate[2], cpuNs[2], ratio;
    for (int round = 0; round < rounds; ++round) {
      bench::Measurement m[2];
      for (bool monitored : {round % 2 == 1, round % 2 == 0}) m[monitored] = bench::measure(config, monitored);
      for (int monitored : {0, 1}) {
        rate[monitored].push_back(m[monitored].eventsPerSecond());
        cpuNs[monitored].push_back(m[monitored].cpuSeconds / static_cast<double>(m[monitored].events) * 1e9);
      }
      ratio.push_back(m[1].eventsPerSecond() / m[0].eventsPerSecond());
    }
    points.push_back({{"threads", threads},
                      {"lanes", lanes},
                      {"events", events},
                      {"rounds", rounds},
                      {"events_per_s", {{"off", spread(rate[0])}, {"on", spread(rate[1])}}},
                      {"cpu_ns_per_event", {{"off", spread(cpuNs[0])}, {"on", spread(cpuNs[1])}}},
                      {"monitored_share_of_rate", spread(ratio)}});
  }
  std::cout << nlohmann::json{{"benchmark", "top_speed"},
                              {"target_events_per_s_1_thread", 8e6},
                              {"target_monitored_share_1_thread", 0.85},
                              {"points", points}}
                   .dump(2)
            << "\n";
}
