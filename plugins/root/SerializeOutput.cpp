#include "root/SerializeOutput.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "lanes/core/PluginOptions.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProductRegistry.h"

namespace lanes::rootio {

namespace {
std::uint64_t nanosecondsSince(std::chrono::steady_clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}
}  // namespace

SerializeOutput::SerializeOutput(std::string label, Options const& options)
    : Output(std::move(label)),
      serialization_(parseSerialization(
          PluginOptions(options, "serialize").choice("serialization", "root", {"root", "unrolled"}))),
      deserialize_(options.getBool("deserialize", false)) {
  initialiseRoot();
  keep(options.getAll("keep"));
}

void SerializeOutput::beginJob(JobContext const& context) {
  serialized_ = serializedColumns(*this, context.registry, serialization_);
  counters_ = std::make_unique<Counters[]>(serialized_.columns.size());
}

void SerializeOutput::productReady(Event const& event, ProductIndex product) const {
  auto const column = serialized_.columnOf[product];
  if (column < 0) return;  // an id product: the id is not serialised here
  void const* object = rootObjectOf(event.slot(product), serialized_.columns[column].type);
  thread_local std::vector<char> bytes;  // calls on a thread never overlap
  bytes.clear();
  auto const start = std::chrono::steady_clock::now();
  serialized_.serializers[column]->write(object, bytes);
  auto& counters = counters_[column];
  counters.nanoseconds.fetch_add(nanosecondsSince(start), std::memory_order_relaxed);
  counters.calls.fetch_add(1, std::memory_order_relaxed);
  counters.bytes.fetch_add(bytes.size(), std::memory_order_relaxed);
  if (!deserialize_) return;
  ProductSlot copy;
  auto const readStart = std::chrono::steady_clock::now();
  serialized_.serializers[column]->read(bytes.data(), bytes.size(), copy);
  counters.readNanoseconds.fetch_add(nanosecondsSince(readStart), std::memory_order_relaxed);
}

void SerializeOutput::write(Event const&) const { written_.fetch_add(1, std::memory_order_relaxed); }

std::vector<SerializeOutput::Figures> SerializeOutput::figures() const {
  std::vector<Figures> figures;
  for (std::size_t i = 0; i < serialized_.columns.size(); ++i) {
    auto const& c = counters_[i];
    figures.push_back({c.calls.load(), c.bytes.load(), c.nanoseconds.load(), c.readNanoseconds.load()});
  }
  return figures;
}

std::string SerializeOutput::details() const {
  auto products = nlohmann::json::array();
  Figures total;
  auto const all = figures();
  for (std::size_t i = 0; i < serialized_.columns.size(); ++i) {
    auto const& f = all[i];
    products.push_back(
        {{"label", serialized_.columns[i].label}, {"calls", f.calls}, {"bytes", f.bytes}, {"ns", f.nanoseconds}});
    if (deserialize_) products.back()["read_ns"] = f.readNanoseconds;
    total.calls += f.calls;
    total.bytes += f.bytes;
    total.nanoseconds += f.nanoseconds;
    total.readNanoseconds += f.readNanoseconds;
  }
  auto details = nlohmann::json{{"events_written", written_.load()},
                                {"serialization", nameOf(serialization_)},
                                {"calls", total.calls},
                                {"bytes", total.bytes},
                                {"serialize_s", static_cast<double>(total.nanoseconds) * 1e-9},
                                {"products", products}};
  if (deserialize_) details["deserialize_s"] = static_cast<double>(total.readNanoseconds) * 1e-9;
  return details.dump();
}

namespace {
RegisterOutput<SerializeOutput> const registration(
    "serialize",
    "serialises each product as it becomes ready, concurrently, and reports time and bytes per product; writes no "
    "file: serialization=root|unrolled, deserialize=true|false (time reading each back too), keep=GLOB");
}

}  // namespace lanes::rootio
