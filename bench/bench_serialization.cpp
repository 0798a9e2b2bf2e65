// Unrolled against ROOT serialisation on NanoAOD's products: the events of
// the NanoAOD test file are read into memory once, then every product of
// every event is serialised (and, apart, deserialised) with each kind, the
// whole file per pass, best of the passes: no clock read per product, and a
// pass slowed by the machine's other work does not count.
//   build/bin/bench_serialization [PASSES]

#include <chrono>
#include <deque>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/core/Options.h"
#include "lanes/core/PluginRegistry.h"
#include "root/Serialization.h"

namespace {

using namespace lanes;
using namespace lanes::rootio;
using Clock = std::chrono::steady_clock;

struct Products {
  std::vector<RootType> types;
  std::vector<std::string> labels;
  std::deque<std::vector<ProductSlot>> events;  // deque: slots cannot move
};

Products readNanoAod() {
  auto const spec = PluginSpec::parse("root:file=" LANES_SOURCE_DIR "/data/files/nanoAOD_2015_CMS_Open_Data_ttbar.root");
  auto source = PluginRegistry::instance().makeSource(spec.name, spec.options);
  Products products;
  for (auto const& description : source->products()) {
    auto const name = description.typeName.empty() ? demangle(description.type) : description.typeName;
    products.types.push_back(rootTypeOf(description.label, description.type, name));
    products.labels.push_back(description.label);
  }
  SourceEvent event;
  while (source->next(event)) {
    auto& slots = products.events.emplace_back(products.types.size());
    for (std::size_t p = 0; p < slots.size(); ++p) source->read(event, p, slots[p]);
  }
  return products;
}

double seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

nlohmann::json measure(Products const& products, SerializationKind kind, int passes) {
  std::vector<std::unique_ptr<ProductSerializer>> serializers;
  for (std::size_t p = 0; p < products.types.size(); ++p) {
    serializers.push_back(makeSerializer(kind, products.types[p], products.labels[p]));
  }
  std::vector<std::vector<char>> bytes(products.events.size() * serializers.size());
  double bestWrite = 1e30, bestRead = 1e30;
  std::size_t total = 0;
  for (int pass = 0; pass < passes; ++pass) {
    auto const start = Clock::now();
    std::size_t i = 0;
    for (auto const& event : products.events) {
      for (std::size_t p = 0; p < serializers.size(); ++p, ++i) {
        bytes[i].clear();
        serializers[p]->write(rootObjectOf(event[p], products.types[p]), bytes[i]);
      }
    }
    bestWrite = std::min(bestWrite, seconds(start));
  }
  for (auto const& b : bytes) total += b.size();
  for (int pass = 0; pass < passes; ++pass) {
    ProductSlot slot;
    auto const start = Clock::now();
    for (std::size_t i = 0; i < bytes.size(); ++i) serializers[i % serializers.size()]->read(bytes[i].data(), bytes[i].size(), slot);
    bestRead = std::min(bestRead, seconds(start));
  }
  auto const events = static_cast<double>(products.events.size());
  return {{"serialization", nameOf(kind)},
          {"serialize_us_per_event", bestWrite / events * 1e6},
          {"deserialize_us_per_event", bestRead / events * 1e6},
          {"bytes_per_event", static_cast<double>(total) / events}};
}

}  // namespace

int main(int argc, char** argv) {
  int const passes = argc > 1 ? std::stoi(argv[1]) : 30;
  auto const products = readNanoAod();
  auto const root = measure(products, SerializationKind::Root, passes);
  auto const unrolled = measure(products, SerializationKind::Unrolled, passes);
  std::cout << nlohmann::json{{"benchmark", "serialization"},
                              {"file", "nanoAOD_2015_CMS_Open_Data_ttbar.root"},
                              {"events", products.events.size()},
                              {"products", products.types.size()},
                              {"passes", passes},
                              {"root", root},
                              {"unrolled", unrolled},
                              {"serialize_speedup", root["serialize_us_per_event"].get<double>() /
                                                        unrolled["serialize_us_per_event"].get<double>()},
                              {"deserialize_speedup", root["deserialize_us_per_event"].get<double>() /
                                                          unrolled["deserialize_us_per_event"].get<double>()}}
                   .dump(1)
            << "\n";
}
