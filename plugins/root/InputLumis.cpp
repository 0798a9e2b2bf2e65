#include "root/InputLumis.h"

#include <nlohmann/json.hpp>

#include <set>
#include <typeinfo>

#include "lanes/core/Exception.h"

namespace lanes::rootio {

bool isRecordKey(std::string const& column) {
  return column == "run" || column == "luminosityBlock" || column == "events";
}

void FileLumis::add(std::uint64_t entry, LumiNumber lumi, std::string const& where) {
  if (lumi.run == 0 || lumi.luminosityBlock == 0) {
    throw Exception(where + ": entry " + std::to_string(entry) + " has " + (lumi.run == 0 ? "run" : "lumi") +
                    " number 0 (" + std::to_string(lumi.run) + ":" + std::to_string(lumi.luminosityBlock) +
                    "): runs and lumis count from 1");
  }
  if (!spans.empty() && spans.back().lumi == lumi && spans.back().end == entry) {
    ++spans.back().end;
  } else {
    spans.push_back({lumi, entry, entry + 1});
  }
}

void FileLumis::compare(std::vector<LumiNumber> const& rows) {
  std::set<LumiNumber> const withEvents = [&] {
    std::set<LumiNumber> lumis;
    for (auto const& span : spans) lumis.insert(span.lumi);
    return lumis;
  }();
  std::set<LumiNumber> const listed(rows.begin(), rows.end());
  for (auto const& row : rows) {
    if (!withEvents.count(row)) empties.push_back(row);
  }
  for (auto const& lumi : withEvents) lumisWithoutRow += listed.count(lumi) ? 0 : 1;
}

LumiIndex::LumiIndex(std::size_t files) : locks_(new std::mutex[files]), files_(files) {}

void LumiIndex::learnNone(std::size_t file) {
  std::lock_guard const hold(locks_[file]);
  files_[file] = std::make_unique<FileLumis const>();
}

namespace {

// visit(T{}) for the number type T of `fundamental`.
template <typename Visit>
void visitNumber(Fundamental const& fundamental, Visit visit) {
  auto const& type = fundamental.scalar;
  if (type == typeid(bool)) return visit(bool{});
  if (type == typeid(char)) return visit(char{});
  if (type == typeid(std::uint8_t)) return visit(std::uint8_t{});
  if (type == typeid(std::int16_t)) return visit(std::int16_t{});
  if (type == typeid(std::uint16_t)) return visit(std::uint16_t{});
  if (type == typeid(std::int32_t)) return visit(std::int32_t{});
  if (type == typeid(std::uint32_t)) return visit(std::uint32_t{});
  if (type == typeid(std::int64_t)) return visit(std::int64_t{});
  if (type == typeid(std::uint64_t)) return visit(std::uint64_t{});
  if (type == typeid(float)) return visit(float{});
  if (type == typeid(double)) return visit(double{});
  throw std::logic_error("not a number type");
}

// How a column's products add up: nullptr for bools (a bool is no count).
MergeProducts mergerOfColumn(InputRecords::Column const& column) {
  MergeProducts merge = nullptr;
  visitNumber(*column.fundamental, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, bool>) merge = column.array ? mergerOf<std::vector<T>>() : mergerOf<T>();
  });
  return merge;
}

void copyValue(InputRecords::Column const& column, ProductSlot const& from, ProductSlot& to) {
  if (!column.array) return column.fundamental->putScalar(from.object(), to, from.bytes());
  visitNumber(*column.fundamental, [&](auto zero) {
    using Vector = std::vector<decltype(zero)>;
    to.emplace(Vector(*static_cast<Vector const*>(from.object())), from.bytes());
  });
}

}  // namespace

void InputRecords::declare(Level level, std::vector<Column> columns) { levels_[index(level)].columns = std::move(columns); }

std::vector<ProductDescription> InputRecords::descriptions(Level level) const {
  std::vector<ProductDescription> result;
  for (auto const& column : columns(level)) {
    auto const& type = column.array ? column.fundamental->array : column.fundamental->scalar;
    result.push_back({column.label, type, {}, mergerOfColumn(column)});
  }
  return result;
}

void InputRecords::add(Level level, LumiNumber key, std::vector<ProductSlot>& values, std::string const& where) {
  auto& records = levels_[index(level)];
  auto [row, added] = records.values.try_emplace(key, records.columns.size());
  auto& sums = row->second;
  for (std::size_t c = 0; c < records.columns.size(); ++c) {
    auto const& column = records.columns[c];
    if (added) {
      copyValue(column, values[c], sums[c]);
      continue;
    }
    auto const merge = mergerOfColumn(column);
    auto const what = where + ": " + (level == Level::Run ? "run " : "lumi ") + std::to_string(key.run) +
                      (level == Level::Run ? "" : ":" + std::to_string(key.luminosityBlock)) + " is listed again, and " +
                      column.label;
    if (!merge) throw Exception(what + " (a bool) cannot add up");
    try {
      merge(sums[c], values[c]);
    } catch (Exception const& error) {
      throw Exception(what + " cannot add up: " + error.message());
    }
  }
}

void InputRecords::read(Level level, LumiNumber key, ProductSlot* slots) const {
  auto const& records = levels_[index(level)];
  auto const row = records.values.find(key);
  if (row == records.values.end()) return;
  for (std::size_t c = 0; c < records.columns.size(); ++c) copyValue(records.columns[c], row->second[c], slots[c]);
}

void InputRecords::count(FileLumis const& lumis) {
  rowsWithoutEvents_ += lumis.empties.size();
  lumisWithoutRow_ += lumis.lumisWithoutRow;
}

std::string InputRecords::details() const {
  if (empty()) return {};
  return nlohmann::json{{"lumi_records",
                         {{"runs", levels_[index(Level::Run)].values.size()},
                          {"lumis", levels_[index(Level::Lumi)].values.size()},
                          {"rows_without_events", rowsWithoutEvents_},
                          {"lumis_without_row", lumisWithoutRow_}}}}
      .dump();
}

void putRecordValue(InputRecords::Column const& column, void const* value, std::size_t count, ProductSlot& slot) {
  auto const& fundamental = *column.fundamental;
  if (!column.array) return fundamental.putScalar(value, slot, fundamental.size);
  slot.adopt(fundamental.newArray(value, count), fundamental.array, count * fundamental.size, fundamental.deleteArray,
             nullptr);
}

}  // namespace lanes::rootio
