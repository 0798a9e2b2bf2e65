#include "root/BlockRecords.h"

#include <TClass.h>
#include <TDataType.h>

#include "lanes/core/Event.h"
#include "lanes/core/Exception.h"
#include "root/BlobReader.h"
#include "root/NumberTypes.h"

namespace lanes::rootio {

namespace {

// Appends a product of `size` bytes (kNotPut: none) to `record`.
void append(BlockRecord& record, char const* bytes, std::uint32_t size) {
  record.sizes.push_back(size);
  if (size != kNotPut) record.blob.insert(record.blob.end(), bytes, bytes + size);
}

std::uint32_t sizeOf(std::size_t bytes, std::string const& label, Level level, LumiNumber number) {
  if (bytes >= kNotPut) {
    throw Exception(std::string(levelName(level)) + " product '" + label + "' of " + blockName(level, number) +
                    " takes 4 GiB or more");
  }
  return static_cast<std::uint32_t>(bytes);
}

}  // namespace

char const* levelName(Level level) { return level == Level::Run ? "run" : "lumi"; }

std::string blockName(Level level, LumiNumber number) {
  auto name = std::string(levelName(level)) + " " + std::to_string(number.run);
  return level == Level::Run ? name : name + ":" + std::to_string(number.luminosityBlock);
}

MergeProducts mergerOfType(RootType const& type) {
  auto const* number = type.fundamental;
  bool const vector = !number && type.cls && !type.emulated && type.cls->GetTypeInfo() &&
                      (number = fundamentalByArray(*type.cls->GetTypeInfo()));
  if (!number) return nullptr;
  // The product's own C++ type: TDataType names long and long long apart, as std::int64_t is one of them.
  return visitNumberType<MergeProducts>(
      TDataType::GetType(number->scalar),
      [vector](auto value) {
        using T = decltype(value);
        return vector ? mergerOf<std::vector<T>>() : mergerOf<T>();
      },
      nullptr);
}

// ---------------------------------------------------------------- RecordSet

void RecordSet::add(BlockRecord record) {
  auto const [found, added] = records_.try_emplace(record.number);
  if (added) {
    found->second = std::move(record);
  } else {
    merge(found->second, record);
  }
}

void RecordSet::merge(BlockRecord& into, BlockRecord const& from) const {
  BlockRecord result{into.number, into.events + from.events, {}, {}};
  std::size_t atInto = 0, atFrom = 0;
  for (std::size_t p = 0; p < products_.size(); ++p) {
    auto const sizeInto = into.sizes[p], sizeFrom = from.sizes[p];
    char const* const bytesInto = into.blob.data() + atInto;
    char const* const bytesFrom = from.blob.data() + atFrom;
    if (sizeInto != kNotPut) atInto += sizeInto;
    if (sizeFrom != kNotPut) atFrom += sizeFrom;
    if (sizeFrom == kNotPut || (sizeInto != kNotPut && products_[p].fromSource)) {
      append(result, bytesInto, sizeInto);
    } else if (sizeInto == kNotPut) {
      append(result, bytesFrom, sizeFrom);
    } else {
      auto const bytes = merged(p, bytesInto, sizeInto, bytesFrom, sizeFrom, into.number);
      append(result, bytes.data(), sizeOf(bytes.size(), products_[p].label, level_, into.number));
    }
  }
  into = std::move(result);
}

std::vector<char> RecordSet::merged(std::size_t p, char const* into, std::size_t intoSize, char const* from,
                                    std::size_t fromSize, LumiNumber number) const {
  auto const& product = products_[p];
  auto const what = std::string(levelName(level_)) + " product '" + product.label + "' of " + blockName(level_, number);
  if (!product.merge) {
    throw Exception(what + " comes twice (a " + levelName(level_) +
                    " that came back, or in two processes of the job) and cannot be merged (" + product.type +
                    ": numbers and vectors of numbers merge, or a type with mergeInto(T&, T const&))");
  }
  ProductSlot sum, more;
  try {
    product.serializer->read(into, intoSize, sum);
    product.serializer->read(from, fromSize, more);
  } catch (Exception const& error) {
    throw Exception(what + ": " + error.message());
  }
  product.merge(sum, more);
  std::vector<char> bytes;
  product.serializer->write(rootObjectOf(sum, product.serializer->type()), bytes);
  return bytes;
}

LevelRecords RecordSet::stored() const {
  LevelRecords stored;
  for (auto const& product : products_) stored.products.emplace_back(product.label, product.type);
  for (auto const& [number, record] : records_) stored.records.push_back(record);
  return stored;
}

// ---------------------------------------------------------------- BlockRecorder

void BlockRecorder::begin(ProductRegistry const& runs, ProductRegistry const& lumis, SerializationKind kind,
                          std::string const& format) {
  for (auto const level : {Level::Lumi, Level::Run}) {
    std::vector<RecordSet::Product> products;
    for (auto const& entry : (level == Level::Run ? runs : lumis).entries()) {
      auto const& description = entry.description;
      RecordSet::Product product;
      product.label = description.label;
      product.merge = description.merge;
      product.fromSource = entry.producer == kSourceProducer;
      auto const named = format + ": " + levelName(level) + " product '" + description.label + "'";
      RootType type;
      try {
        type = rootTypeOf(description.label, description.type, description.typeName);
      } catch (ConfigurationError const&) {
        throw ConfigurationError(named + " of type '" + description.typeName +
                                 "' has no ROOT dictionary; the records of runs and lumis keep every run and lumi "
                                 "product (keep= selects event products)");
      }
      try {
        product.serializer = makeSerializer(kind, type, description.label);
      } catch (ConfigurationError const& error) {
        throw ConfigurationError(named + ": " + error.message());
      }
      product.type = storedTypeName(type);
      products.push_back(std::move(product));
    }
    of(level).set = std::make_unique<RecordSet>(level, std::move(products));
  }
}

void BlockRecorder::add(Lumi const& lumi, std::uint64_t events) {
  add(Level::Lumi, lumi, {lumi.run(), lumi.luminosityBlock()}, events);
}

void BlockRecorder::add(Run const& run, std::uint64_t events) { add(Level::Run, run, {run.run(), 0}, events); }

void BlockRecorder::add(Level level, Block const& block, LumiNumber number, std::uint64_t events) {
  auto& records = of(level);
  auto const& products = records.set->products();
  BlockRecord record{number, events, {}, {}};
  // Serialised outside the lock: the ends of several lumis at once do so concurrently.
  for (std::size_t p = 0; p < products.size(); ++p) {
    auto const* slot = block.slot(static_cast<ProductIndex>(p));
    if (!slot) {
      record.sizes.push_back(kNotPut);
      continue;
    }
    auto const before = record.blob.size();
    auto const& serializer = *products[p].serializer;
    serializer.write(rootObjectOf(*slot, serializer.type()), record.blob);
    record.sizes.push_back(sizeOf(record.blob.size() - before, products[p].label, level, number));
  }
  std::lock_guard const hold(records.lock);
  records.set->add(std::move(record));
}

void BlockRecorder::merge(BlockRecords const& records, std::string const& part) {
  if (!records.kept) throw Exception("its part '" + part + "' keeps no run and lumi records");
  for (auto const level : {Level::Lumi, Level::Run}) {
    auto& set = *of(level).set;
    auto const& stored = records.of(level);
    if (stored.products != productsOf(level)) {
      throw Exception("its part '" + part + "' records other " + levelName(level) + " products");
    }
    requireConsistent(stored, level, part);
    try {
      for (auto const& record : stored.records) set.add(record);
    } catch (Exception const& error) {
      throw Exception("its part '" + part + "': " + error.message());
    }
  }
}

BlockRecords BlockRecorder::stored() const { return {true, lumis_.set->stored(), runs_.set->stored()}; }

std::vector<std::pair<std::string, std::string>> BlockRecorder::productsOf(Level level) const {
  std::vector<std::pair<std::string, std::string>> products;
  for (auto const& product : of(level).set->products()) products.emplace_back(product.label, product.type);
  return products;
}

void OutputRecords::begin(JobContext const& context, SerializationKind kind, std::string const& format) {
  recorder_.begin(*context.runRegistry, *context.lumiRegistry, kind, format);
}

void OutputRecords::written(Event const& event) const {
  lumiEvents_[event] += 1;
  runEvents_[event] += 1;
}

BlockRecords mergedRecords(OutputModule const& output, SerializationKind kind, std::string const& format,
                           std::vector<std::string> const& files, ReadRecords const& read) {
  BlockRecorder merged;
  merged.begin(*output.runRegistry(), *output.lumiRegistry(), kind, format);
  for (auto const& file : files) merged.merge(read(file), file);
  return merged.stored();
}

void requireConsistent(LevelRecords const& records, Level level, std::string const& path) {
  for (auto const& record : records.records) {
    auto const malformed = [&](std::string const& why) {
      throw Exception("cannot read '" + path + "': its " + levelName(level) + " records are malformed (" +
                      blockName(level, record.number) + " " + why + ")");
    };
    if (record.number.run == 0 || (level == Level::Lumi && record.number.luminosityBlock == 0)) {
      malformed("has number 0");
    }
    std::uint64_t bytes = 0;
    for (auto const size : record.sizes) bytes += size == kNotPut ? 0 : size;
    if (record.sizes.size() != records.products.size() || bytes != record.blob.size()) {
      malformed("has sizes that do not match its products and bytes");
    }
  }
}

}  // namespace lanes::rootio
