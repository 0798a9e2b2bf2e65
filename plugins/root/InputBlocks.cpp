#include "root/InputBlocks.h"

#include <algorithm>
#include <optional>
#include <set>

#include "lanes/core/Exception.h"

namespace lanes::rootio {

std::vector<StoredProduct> InputBlocks::productsOf(LevelRecords const& records, std::string const& path,
                                                   SerializationKind kind) {
  std::vector<StoredProduct> products;
  for (auto const& [label, type] : records.products) products.push_back(storedProduct(path, label, type, kind));
  return products;
}

void InputBlocks::addEvents(std::uint32_t const* runs, std::uint32_t const* lumis, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i, ++events_) {
    LumiNumber const number{runs[i], lumis[i]};
    if (stretches_.empty() || stretches_.back().lumi != number) stretches_.push_back({number, events_, {}});
  }
}

void InputBlocks::addRecords(BlockRecords records, std::string const& path, SerializationKind kind) {
  auto const& declared = declared_ ? declaredProducts_ : records;  // the first file declares
  std::optional<File> file;
  if (records.kept) {
    for (auto const level : {Level::Lumi, Level::Run}) {
      if (records.of(level).products != declared.of(level).products) {
        throw Exception("'" + path + "' records other run or lumi products than the first input file '" +
                        declaredBy_ + "'");
      }
      requireConsistent(records.of(level), level, path);
    }
    file = File{path, productsOf(records.lumis, path, kind), productsOf(records.runs, path, kind)};
  }
  if (!declared_) {  // nothing thrown: the file counts
    declared_ = true;
    declaredBy_ = path;
    declaredProducts_.lumis.products = records.lumis.products;
    declaredProducts_.runs.products = records.runs.products;
  }
  if (!file) return;
  files_.push_back(std::move(*file));
  if (files_.size() == 1) {
    for (auto const& product : files_.front().lumis) lumiMerges_.push_back(mergerOfType(product.serializer->type()));
    for (auto const& product : files_.front().runs) runMerges_.push_back(mergerOfType(product.serializer->type()));
  }
  for (auto const level : {Level::Lumi, Level::Run}) {
    auto& byNumber = level == Level::Run ? runs_ : lumis_;
    for (auto& record : records.of(level).records) {
      byNumber[record.number].push_back({files_.size() - 1, std::move(record)});
    }
  }
}

std::vector<ProductDescription> InputBlocks::products(Level level) const {
  std::vector<ProductDescription> descriptions;
  if (files_.empty()) return descriptions;
  for (auto const& product : level == Level::Run ? files_.front().runs : files_.front().lumis) {
    descriptions.push_back(product.description);
  }
  return descriptions;
}

void InputBlocks::finish() {
  std::set<LumiNumber> withEvents;
  std::map<std::uint32_t, std::vector<std::size_t>> stretchesOfRun;  // in the input's order
  for (std::size_t i = 0; i < stretches_.size(); ++i) {
    withEvents.insert(stretches_[i].lumi);
    stretchesOfRun[stretches_[i].lumi.run].push_back(i);
  }
  // Before stretch i (i = size(): at the input's end): the lumis that close
  // the run of the stretch before it, then those of its own run.
  auto const count = stretches_.size() + 1;
  std::vector<std::vector<LumiNumber>> closing(count), opening(count);
  for (auto const& [number, stored] : lumis_) {  // in (run, lumi) order
    if (withEvents.count(number)) continue;
    auto const run = stretchesOfRun.find(number.run);
    if (run == stretchesOfRun.end()) {  // a run without events: before the first stretch of a greater number
      auto const greater = std::find_if(stretches_.begin(), stretches_.end(),
                                        [&](Stretch const& stretch) { return number < stretch.lumi; });
      opening[static_cast<std::size_t>(greater - stretches_.begin())].push_back(number);
      continue;
    }
    auto const& indices = run->second;
    auto const greater = std::find_if(indices.begin(), indices.end(), [&](std::size_t i) {
      return stretches_[i].lumi.luminosityBlock > number.luminosityBlock;
    });
    if (greater != indices.end()) {
      opening[*greater].push_back(number);
    } else {
      closing[indices.back() + 1].push_back(number);
    }
  }
  auto const joined = [&](std::size_t i) {
    auto lumis = std::move(closing[i]);
    lumis.insert(lumis.end(), opening[i].begin(), opening[i].end());
    return lumis;
  };
  for (std::size_t i = 0; i < stretches_.size(); ++i) stretches_[i].emptyBefore = joined(i);
  emptyAtEnd_ = joined(stretches_.size());
}

LumiStretch InputBlocks::stretchAt(std::uint64_t ordinal) const {
  if (ordinal >= events_) return {{}, events_, events_, emptyAtEnd_};
  auto const after = std::upper_bound(stretches_.begin(), stretches_.end(), ordinal,
                                      [](std::uint64_t o, Stretch const& stretch) { return o < stretch.first; });
  auto const& stretch = *(after - 1);
  return {stretch.lumi, stretch.first, after == stretches_.end() ? events_ : after->first, stretch.emptyBefore};
}

void InputBlocks::read(Level level, LumiNumber number, ProductSlot* slots) const {
  auto const& byNumber = level == Level::Run ? runs_ : lumis_;
  auto const found = byNumber.find(number);
  if (found == byNumber.end()) return;
  for (auto const& stored : found->second) readRecord(level, stored, slots);
}

void InputBlocks::readRecord(Level level, Stored const& stored, ProductSlot* slots) const {
  auto const& file = files_[stored.file];
  auto const& products = level == Level::Run ? file.runs : file.lumis;
  auto const& merges = level == Level::Run ? runMerges_ : lumiMerges_;
  auto const& record = stored.record;
  std::size_t at = 0;
  for (std::size_t p = 0; p < products.size(); ++p) {
    auto const size = record.sizes[p];
    if (size == kNotPut) continue;
    char const* const bytes = record.blob.data() + at;
    at += size;
    auto const& product = products[p];
    try {
      if (!slots[p].filled()) {
        product.serializer->read(bytes, size, slots[p]);
        continue;
      }
      if (!merges[p]) {
        throw Exception("an earlier input file records it too, and a " +
                        declaredProducts_.of(level).products[p].second +
                        " cannot be merged (numbers and vectors of numbers merge)");
      }
      ProductSlot more;
      product.serializer->read(bytes, size, more);
      merges[p](slots[p], more);
    } catch (Exception const& error) {
      throw Exception("cannot read '" + file.path + "': " + blockName(level, record.number) + ": product '" +
                      product.description.label + "': " + error.message());
    }
  }
}

}  // namespace lanes::rootio
