#include "root/SerializeOutput.h"

#include <TBufferFile.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ProductRegistry.h"
#include "root/ProductStreaming.h"

namespace lanes::rootio {

SerializeOutput::SerializeOutput(std::string label, Options const& options) : Output(std::move(label)) {
  initialiseRoot();
  keep(options.getAll("keep"));
}

void SerializeOutput::beginJob(JobContext const& context) {
  columns_ = columnsOf(*this, context.registry);
  columnOf_.assign(context.registry.size(), -1);
  for (std::size_t i = 0; i < columns_.size(); ++i) columnOf_[columns_[i].index] = static_cast<int>(i);
  counters_ = std::make_unique<Counters[]>(columns_.size());
}

void SerializeOutput::productReady(Event const& event, ProductIndex product) const {
  auto const column = columnOf_[product];
  if (column < 0) return;  // an id product: the id is not serialised here
  auto const& type = columns_[column].type;
  void* object = rootObjectOf(event.slot(product), type);
  // One buffer per thread, reused: calls on a thread never overlap.
  thread_local TBufferFile buffer(TBuffer::kWrite);
  auto const start = std::chrono::steady_clock::now();
  streamProduct(buffer, object, type);
  auto const elapsed = std::chrono::steady_clock::now() - start;
  auto& counters = counters_[column];
  counters.calls.fetch_add(1, std::memory_order_relaxed);
  counters.bytes.fetch_add(static_cast<std::uint64_t>(buffer.Length()), std::memory_order_relaxed);
  counters.nanoseconds.fetch_add(
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()),
      std::memory_order_relaxed);
}

void SerializeOutput::write(Event const&) const { written_.fetch_add(1, std::memory_order_relaxed); }

std::vector<SerializeOutput::Figures> SerializeOutput::figures() const {
  std::vector<Figures> figures;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    figures.push_back({counters_[i].calls.load(), counters_[i].bytes.load(), counters_[i].nanoseconds.load()});
  }
  return figures;
}

std::string SerializeOutput::details() const {
  auto products = nlohmann::json::array();
  Figures total;
  auto const all = figures();
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    auto const& f = all[i];
    products.push_back({{"label", columns_[i].label}, {"calls", f.calls}, {"bytes", f.bytes}, {"ns", f.nanoseconds}});
    total.calls += f.calls;
    total.bytes += f.bytes;
    total.nanoseconds += f.nanoseconds;
  }
  return nlohmann::json{{"events_written", written_.load()},
                        {"calls", total.calls},
                        {"bytes", total.bytes},
                        {"serialize_s", static_cast<double>(total.nanoseconds) * 1e-9},
                        {"products", products}}
      .dump();
}

namespace {
RegisterOutput<SerializeOutput> const registration(
    "serialize",
    "serialises each product with ROOT's TBufferFile as it becomes ready, concurrently, and reports time and bytes "
    "per product; writes no file: keep=GLOB");
}

}  // namespace lanes::rootio
