#include "root/TreeRecords.h"

#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"

namespace lanes::rootio {

namespace {

constexpr char const* kKeyColumns[] = {"run", "luminosityBlock", kEventsColumn};

void describe(RecordTable& table, ProductRegistry const& registry) {
  char const* const level = table.level == Level::Run ? "run" : "lumi";
  for (ProductIndex index = 0; index < registry.size(); ++index) {
    auto const& [description, producer] = registry[index];
    if (std::find(std::begin(kKeyColumns), std::end(kKeyColumns), description.label) != std::end(kKeyColumns)) {
      throw ConfigurationError(std::string(level) + " product '" + description.label + "' has the name of a column of " +
                               table.name + ": an output that writes it cannot tell them apart");
    }
    auto type = rootTypeOf(description.label, description.type, description.typeName);
    table.copiers.push_back(makeSerializer(SerializationKind::Root, type, description.label));
    table.columns.push_back({description.label, index, std::move(type)});
    table.merges.push_back(description.merge);
    table.fromSource.push_back(producer == kSourceProducer);
  }
}

std::string nameOf(Level level, LumiNumber key) {
  return level == Level::Run ? "run " + std::to_string(key.run)
                             : "lumi " + std::to_string(key.run) + ":" + std::to_string(key.luminosityBlock);
}

}  // namespace

TreeRecords::TreeRecords(ProductRegistry const& runs, ProductRegistry const& lumis) {
  lumis_.level = Level::Lumi;
  lumis_.name = kLumiRecords;
  runs_.level = Level::Run;
  runs_.name = kRunRecords;
  describe(lumis_, lumis);
  describe(runs_, runs);
}

void TreeRecords::take(Lumi const& lumi, std::uint64_t events) {
  merge(lumis_, {lumi.run(), lumi.luminosityBlock()}, events,
        [&](Column const& column) { return lumi.slot(column.index); });
}

void TreeRecords::take(Run const& run, std::uint64_t events) {
  merge(runs_, {run.run(), 0}, events,
        [&](Column const& column) { return run.slot(column.index); });
}

void TreeRecords::absorb(Level level, LumiNumber key, std::uint64_t events, std::vector<ProductSlot> const& products) {
  auto& table = this->table(level);
  merge(table, key, events, [&](Column const& column) {
    auto const& slot = products[static_cast<std::size_t>(&column - table.columns.data())];
    return slot.filled() ? &slot : nullptr;
  });
}

template <typename ProductOf>
void TreeRecords::merge(RecordTable& table, LumiNumber key, std::uint64_t events, ProductOf productOf) {
  std::lock_guard const hold(lock_);
  auto& row = table.rows[key];
  row.products.resize(table.columns.size());
  row.events += events;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    auto const* product = productOf(table.columns[c]);
    if (!product) continue;
    auto& kept = row.products[c];
    if (!kept) {
      auto const& type = table.columns[c].type;
      std::vector<char> bytes;
      table.copiers[c]->write(rootObjectOf(*product, type), bytes);
      kept = std::make_unique<ProductSlot>();
      table.copiers[c]->read(bytes.data(), bytes.size(), *kept);
      continue;
    }
    if (table.fromSource[c]) continue;  // the input's record: the same in every entry and process
    auto const what = (table.level == Level::Run ? "run product '" : "lumi product '") + table.columns[c].label +
                      "' of " + nameOf(table.level, key);
    if (!table.merges[c]) {
      throw Exception(what + " must be merged (its " + (table.level == Level::Run ? "run" : "lumi") +
                      " came back, or several processes each put a part of it) and cannot be: a " +
                      table.columns[c].type.name +
                      " (numbers and vectors of numbers merge, or a type with mergeInto(T&, T const&))");
    }
    try {
      table.merges[c](*kept, *product);
    } catch (Exception const& error) {
      throw Exception(what + " cannot be merged: " + error.message());
    }
  }
}

std::unique_ptr<TreeRecords> RecordKeeper::jobRecords() const {
  return std::make_unique<TreeRecords>(*output_.runRegistry(), *output_.lumiRegistry());
}

std::string recordDetails(std::string const& details, TreeRecords const* records, bool written) {
  if (!records) return details;
  auto json = nlohmann::json::parse(details);
  json["lumis_written"] = written ? records->lumis().rows.size() : 0;
  json["runs_written"] = written ? records->runs().rows.size() : 0;
  return json.dump();
}

}  // namespace lanes::rootio
