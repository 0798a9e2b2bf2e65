#include "root/NTupleLumis.h"

#include <ROOT/RError.hxx>
#include <ROOT/RNTuple.hxx>
#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <TFile.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>

#include "lanes/core/Exception.h"
#include "lanes/core/ReadingNote.h"

namespace lanes::rootio {

namespace {

std::string where(TFile& file, char const* name) { return "'" + std::string(file.GetName()) + "': RNTuple '" + name + "'"; }

// Runs `action`; a ROOT exception or fatal error comes back naming `what`.
template <typename Action>
auto reading(std::string const& what, Action action) -> decltype(action()) {
  try {
    ThrowOnRootFatal const guard;
    return action();
  } catch (ROOT::RException const& error) {
    throw Exception(what + ": " + rootExceptionMessage(error));
  } catch (Exception const& fatal) {
    throw Exception(what + ": " + fatal.message());
  }
}

// The reader of record RNTuple `name` in `file`, or nullptr if it has none.
std::unique_ptr<ROOT::RNTupleReader> recordReader(TFile& file, char const* name) {
  auto* ntuple = readObject<ROOT::RNTuple>(file, name, "RNTuple");
  if (!ntuple) return nullptr;
  ReadingScope const scope({file.GetName(), "RNTuple", name});
  return reading("cannot read " + where(file, name), [&] { return ROOT::RNTupleReader::Open(*ntuple); });
}

// Each top-level field's name and type.
std::vector<std::pair<std::string, std::string>> fieldsOf(ROOT::RNTupleReader& reader) {
  auto const& descriptor = reader.GetDescriptor();
  std::vector<std::pair<std::string, std::string>> fields;
  for (auto const& field : descriptor.GetFieldIterable(descriptor.GetFieldZeroId())) {
    fields.emplace_back(field.GetFieldName(), field.GetTypeName());
  }
  return fields;
}

InputRecords::Column columnOf(std::string const& name, std::string const& type, std::string const& where) {
  if (auto const* scalar = fundamentalByNtupleName(type)) return {name, scalar, false};
  if (auto const* element = fundamentalByNtupleName(elementOfSequence(type))) return {name, element, true};
  throw Exception(where + ": field '" + name + "' of type '" + type +
                  "' is not a number, nor an RVec or std::vector of numbers: it cannot be a run or lumi product");
}

// A field read value by value: a number into a buffer, a vector into an object of its own.
class FieldReader {
 public:
  FieldReader(ROOT::RNTupleReader& reader, InputRecords::Column const& column, std::string const& where)
      : column_(column), where_(where) {
    auto const fields = fieldsOf(reader);
    auto const found = std::find_if(fields.begin(), fields.end(), [&](auto const& f) { return f.first == column.label; });
    if (found == fields.end()) throw Exception(where + " has no field '" + column.label + "' (the first input file has)");
    auto const type = columnOf(found->first, found->second, where);
    if (type.fundamental != column.fundamental || type.array != column.array) {
      throw Exception(where + ": field '" + column.label + "' is of another type than in the first input file");
    }
    if (column.array) vector_ = column.fundamental->newArray(nullptr, 0);
    auto const readAs = column.array ? "std::vector<" + std::string(column.fundamental->ntupleName) + ">" : found->second;
    view_.emplace(reading("cannot read field '" + column.label + "' of " + where,
                          [&] { return reader.GetView(column.label, vector_ ? vector_ : scalar_.data(), readAs); }));
  }
  ~FieldReader() {
    view_.reset();
    if (vector_) column_.fundamental->deleteArray(vector_, nullptr);
  }
  FieldReader(FieldReader const&) = delete;
  FieldReader& operator=(FieldReader const&) = delete;

  // Reads the value of `entry` into `slot`.
  void read(std::uint64_t entry, ProductSlot& slot) {
    reading("cannot read field '" + column_.label + "' of entry " + std::to_string(entry) + " of " + where_,
            [&] { (*view_)(entry); });
    if (!vector_) return putRecordValue(column_, scalar_.data(), 1, slot);
    putRecordValue(column_, nullptr, 0, slot);
    column_.fundamental->swapArrays(const_cast<void*>(slot.object()), vector_);
  }
  // The integer read last (a key column's).
  std::uint32_t integer() const {
    std::uint64_t value = 0;
    std::memcpy(&value, scalar_.data(), column_.fundamental->size);  // little-endian: the low bytes
    return static_cast<std::uint32_t>(value);
  }

 private:
  InputRecords::Column const column_;
  std::string where_;
  alignas(8) std::array<unsigned char, 8> scalar_{};
  void* vector_ = nullptr;
  std::optional<ROOT::RNTupleView<void>> view_;
};

// Each row's key of a record RNTuple: (run, luminosityBlock), or (run, 0) of Runs.
template <typename Row>
void forEachRow(ROOT::RNTupleReader& reader, Level level, std::string const& where, Row row) {
  auto const key = [&](char const* name) {
    auto const fields = fieldsOf(reader);
    auto const found = std::find_if(fields.begin(), fields.end(), [&](auto const& f) { return f.first == name; });
    auto const* type = found == fields.end() ? nullptr : fundamentalByNtupleName(found->second);
    if (!type || type->scalar == typeid(float) || type->scalar == typeid(double)) {
      throw Exception(where + " has no integer field '" + name + "'");
    }
    return std::make_unique<FieldReader>(reader, InputRecords::Column{name, type, false}, where);
  };
  auto run = key("run");
  auto lumi = level == Level::Lumi ? key("luminosityBlock") : nullptr;
  ProductSlot ignored;
  for (std::uint64_t entry = 0; entry < reader.GetNEntries(); ++entry) {
    run->read(entry, ignored);
    if (lumi) lumi->read(entry, ignored);
    row(entry, LumiNumber{run->integer(), lumi ? lumi->integer() : 0u});
  }
}

}  // namespace

std::vector<InputRecords::Column> ntupleRecordColumns(TFile& file, char const* name) {
  auto reader = recordReader(file, name);
  if (!reader) return {};
  std::vector<InputRecords::Column> columns;
  for (auto const& [field, type] : fieldsOf(*reader)) {
    if (!isRecordKey(field)) columns.push_back(columnOf(field, type, where(file, name)));
  }
  return columns;
}

FileLumis ntupleLumis(TFile& file, std::string const& events, std::uint64_t entries,
                      std::function<LumiNumber(std::uint64_t)> const& idOf, LumiRows which) {
  std::optional<std::vector<LumiNumber>> rows;
  auto reader = which == LumiRows::Ignored ? nullptr : recordReader(file, kLumiRecords);
  if (reader) {
    rows.emplace();
    forEachRow(*reader, Level::Lumi, where(file, kLumiRecords), [&](std::uint64_t, LumiNumber key) { rows->push_back(key); });
  } else if (which == LumiRows::Required) {
    rows.emplace();
  }
  return fileLumis(entries, idOf, rows, where(file, events.c_str()));
}

void addNTupleRecords(TFile& file, InputRecords& records) {
  for (auto level : {Level::Lumi, Level::Run}) {
    auto const& columns = records.columns(level);
    auto const* name = level == Level::Run ? kRunRecords : kLumiRecords;
    auto reader = columns.empty() ? nullptr : recordReader(file, name);
    if (!reader) continue;
    auto const at = where(file, name);
    std::vector<std::unique_ptr<FieldReader>> fields;
    for (auto const& column : columns) fields.push_back(std::make_unique<FieldReader>(*reader, column, at));
    std::vector<ProductSlot> values(columns.size());
    forEachRow(*reader, level, at, [&](std::uint64_t entry, LumiNumber key) {
      for (std::size_t c = 0; c < columns.size(); ++c) fields[c]->read(entry, values[c]);
      records.add(level, key, values, at);
    });
  }
}

}  // namespace lanes::rootio
