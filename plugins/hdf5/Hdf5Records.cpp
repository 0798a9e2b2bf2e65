#include "hdf5/Hdf5Records.h"

#include <cstdint>

#include "lanes/core/Exception.h"

namespace lanes::hdf5 {

namespace {

char const* groupOf(Level level) { return level == Level::Run ? kRunRecords : kLumiRecords; }

void writeLevel(Hdf5Writer& writer, Level level, rootio::LevelRecords const& stored) {
  auto const* name = groupOf(level);
  if (hasLink(writer.root(), name)) {
    check(H5Ldelete(writer.root(), name, H5P_DEFAULT), std::string("cannot replace group '") + name + "'");
  }
  auto const group = writer.addGroup(writer.root(), name);
  auto const count = stored.records.size();
  std::vector<std::uint32_t> runs, lumis;
  std::vector<std::uint64_t> events;
  for (auto const& record : stored.records) {
    runs.push_back(record.number.run);
    lumis.push_back(record.number.luminosityBlock);
    events.push_back(record.events);
  }
  auto const add = [&](hid_t parent, char const* dataset, hid_t type, void const* data, std::uint64_t length) {
    writer.append(writer.addDataset(parent, dataset, type, length), data, length);
  };
  add(group, "run", H5T_NATIVE_UINT32, runs.data(), count);
  if (level == Level::Lumi) add(group, "luminosityBlock", H5T_NATIVE_UINT32, lumis.data(), count);
  add(group, "events", H5T_NATIVE_UINT64, events.data(), count);
  auto const products = writer.addGroup(group, kProducts);
  std::vector<std::size_t> at(count, 0);  // where each record's next product begins in its blob
  for (std::size_t p = 0; p < stored.products.size(); ++p) {
    auto const& [label, type] = stored.products[p];
    auto const product = writer.addProduct(products, label, kBlob, type);
    std::vector<unsigned char> values;
    std::vector<std::uint32_t> sizes;
    for (std::size_t r = 0; r < count; ++r) {
      auto const& record = stored.records[r];
      auto const size = record.sizes[p];
      sizes.push_back(size);
      if (size == rootio::kNotPut) continue;
      auto const* bytes = reinterpret_cast<unsigned char const*>(record.blob.data()) + at[r];
      values.insert(values.end(), bytes, bytes + size);
      at[r] += size;
    }
    add(product, kValues, H5T_NATIVE_UINT8, values.data(), values.size());
    add(product, kSizes, H5T_NATIVE_UINT32, sizes.data(), count);
  }
}

// Reads the whole 1-D dataset `name` of `parent` as `type` into `into`.
template <typename T>
void readAll(hid_t parent, char const* name, hid_t type, std::vector<T>& into, std::string const& what) {
  Id dataset(H5Dopen2(parent, name, H5P_DEFAULT), &H5Dclose);
  if (dataset.get() < 0) throwError(what + ": it has no dataset '" + name + "'");
  into.resize(lengthOf(dataset.get(), what));
  readRange(dataset.get(), type, 0, into.size(), into.data(), what);
}

void readLevel(hid_t file, Level level, std::string const& path, rootio::LevelRecords& stored) {
  auto const* name = groupOf(level);
  std::string const what = "cannot read '" + path + "': its " + rootio::levelName(level) + " records";
  auto const malformed = [&](std::string const& why) { throw Exception(what + " are malformed (" + why + ")"); };
  Id group(H5Gopen2(file, name, H5P_DEFAULT), &H5Gclose);
  if (group.get() < 0) throwError(what + ": it has no group '" + name + "'");
  std::vector<std::uint32_t> runs, lumis;
  std::vector<std::uint64_t> events;
  readAll(group.get(), "run", H5T_NATIVE_UINT32, runs, what);
  if (level == Level::Lumi) readAll(group.get(), "luminosityBlock", H5T_NATIVE_UINT32, lumis, what);
  lumis.resize(runs.size(), 0);  // a run's
  readAll(group.get(), "events", H5T_NATIVE_UINT64, events, what);
  if (events.size() != runs.size() || (level == Level::Lumi && lumis.size() != runs.size())) {
    malformed("their numbers and event counts differ in length");
  }
  for (std::size_t r = 0; r < runs.size(); ++r) stored.records.push_back({{runs[r], lumis[r]}, events[r], {}, {}});
  Id products(H5Gopen2(group.get(), kProducts, H5P_DEFAULT), &H5Gclose);
  if (products.get() < 0) throwError(what + std::string(": it has no group '") + kProducts + "'");
  std::vector<std::vector<char>> values;  // per product
  std::vector<std::vector<std::uint32_t>> sizes;
  for (auto const& label : childrenOf(products.get(), what)) {
    Id product(H5Gopen2(products.get(), label.c_str(), H5P_DEFAULT), &H5Gclose);
    if (product.get() < 0) throwError(what + ": product '" + label + "'");
    stored.products.emplace_back(label, stringAttribute(product.get(), "type"));
    readAll(product.get(), kValues, H5T_NATIVE_UINT8, values.emplace_back(), what + ": product '" + label + "'");
    readAll(product.get(), kSizes, H5T_NATIVE_UINT32, sizes.emplace_back(), what + ": product '" + label + "'");
    std::uint64_t total = 0;
    for (auto const size : sizes.back()) total += size == rootio::kNotPut ? 0 : size;
    if (sizes.back().size() != runs.size() || total != values.back().size()) {
      malformed("product '" + label + "' has sizes that do not match its records and bytes");
    }
  }
  std::vector<std::size_t> at(values.size(), 0);  // where each product's next record's bytes begin
  for (std::size_t r = 0; r < runs.size(); ++r) {
    auto& record = stored.records[r];
    for (std::size_t p = 0; p < values.size(); ++p) {
      auto const size = sizes[p][r];
      record.sizes.push_back(size);
      if (size == rootio::kNotPut) continue;
      record.blob.insert(record.blob.end(), values[p].begin() + static_cast<std::ptrdiff_t>(at[p]),
                         values[p].begin() + static_cast<std::ptrdiff_t>(at[p] + size));
      at[p] += size;
    }
  }
}

}  // namespace

void requireGroupNames(std::vector<std::pair<std::string, std::string>> const& products, Level level) {
  for (auto const& [label, type] : products) {
    if (label.find('/') != std::string::npos || label == ".") {
      throw ConfigurationError(std::string("hdf5: ") + rootio::levelName(level) + " product '" + label +
                               "' cannot name an HDF5 group (the records of runs and lumis keep every run and lumi "
                               "product)");
    }
  }
}

void writeRecords(Hdf5Writer& writer, rootio::BlockRecords const& records) {
  writeLevel(writer, Level::Lumi, records.lumis);
  writeLevel(writer, Level::Run, records.runs);
}

rootio::BlockRecords readRecords(hid_t file, std::string const& path) {
  rootio::BlockRecords records;
  records.kept = hasLink(file, kLumiRecords);
  if (!records.kept) return records;
  readLevel(file, Level::Lumi, path, records.lumis);
  readLevel(file, Level::Run, path, records.runs);
  return records;
}

rootio::BlockRecords recordsIn(std::string const& path) {
  auto const lock = lockLibrary();
  return readRecords(openFile(path).get(), path);
}

}  // namespace lanes::hdf5
