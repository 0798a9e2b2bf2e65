// (a) The framework's own limit: an empty source, no waiters, a dummy output.
// At bench::scalingPoints() (1 and 2 threads, and the machine's threads with
// 2x and 4x as many lanes), runs ROUNDS rounds of a job without the monitor,
// with it (what `lanes run` attaches), and with it timing one event in N for
// each SAMPLE N given (`lanes run --monitor-sample N`), rotating which goes
// first, and prints the median, least and most of each figure over the
// rounds, with each monitored rate as a share of the unmonitored one, round
// by round.
//   build/bin/bench_top_speed [EVENTS] [ROUNDS] [SAMPLE...]

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
  // The monitored variants: the timing sample of each (1: exact); 0 stands for the monitor off.
  std::vector<unsigned> variants{0, 1};
  for (int i = 3; i < argc; ++i) variants.push_back(static_cast<unsigned>(std::stoul(argv[i])));
  auto const name = [](unsigned sample) {
    return sample == 0 ? std::string("off") : sample == 1 ? std::string("on") : "on_1_in_" + std::to_string(sample);
  };
  nlohmann::json points = nlohmann::json::array();
  for (auto const [threads, lanes] : bench::scalingPoints()) {
    JobConfig config;
    config.source = PluginSpec::parse("empty");
    config.outputs.push_back({"out", PluginSpec::parse("dummy"), {}});
    config.threads = threads;
    config.lanes = lanes;
    config.maxEvents = events;
    auto const n = variants.size();
    std::vector<std::vector<double>> rate(n), cpuNs(n), share(n);
    for (int round = 0; round < rounds; ++round) {
      std::vector<bench::Measurement> m(n);
      for (std::size_t k = 0; k < n; ++k) {
        auto const v = (k + static_cast<std::size_t>(round)) % n;
        config.timingSample = std::max(1u, variants[v]);
        m[v] = bench::measure(config, variants[v] != 0);
      }
      for (std::size_t v = 0; v < n; ++v) {
        rate[v].push_back(m[v].eventsPerSecond());
        cpuNs[v].push_back(m[v].cpuSeconds / static_cast<double>(m[v].events) * 1e9);
        share[v].push_back(m[v].eventsPerSecond() / m[0].eventsPerSecond());
      }
    }
    nlohmann::json rates, cpu, shares;
    for (std::size_t v = 0; v < n; ++v) {
      rates[name(variants[v])] = spread(rate[v]);
      cpu[name(variants[v])] = spread(cpuNs[v]);
      if (v > 0) shares[name(variants[v])] = spread(share[v]);
    }
    points.push_back({{"threads", threads},
                      {"lanes", lanes},
                      {"events", events},
                      {"rounds", rounds},
                      {"events_per_s", rates},
                      {"cpu_ns_per_event", cpu},
                      {"monitored_share_of_rate", shares}});
  }
  std::cout << nlohmann::json{{"benchmark", "top_speed"},
                              {"target_events_per_s_1_thread", 8e6},
                              {"target_monitored_share_1_thread", 0.85},
                              {"points", points}}
                   .dump(2)
            << "\n";
}
