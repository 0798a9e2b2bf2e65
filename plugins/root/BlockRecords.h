#pragma once
// The run and lumi records of the blob formats (root-events, pds, hdf5;
// docs/formats.md): one record for each run and each (run, lumi) of a job
// that an output saw end: its numbers, the events the output wrote in it,
// and every run or lumi product of the job, serialised as the format
// serialises event products (Serialization.h; never compressed by the
// framework: a record is small). A format stores a level's records as it
// stores events: the products' labels and types once, then per record the
// products' bytes one after another and each one's size, kNotPut where the
// record lacks the product (nobody put it in that lumi).
//
// One record per number: a lumi that comes back later in the job (3, 4, 3)
// is merged into its record, and so are the records of the parts of a
// multi-process job. Their events add up; a product a module put is merged
// as Lumi::put merges (its ProductDescription::merge: Lumi.h's mergeInto),
// and one that cannot be is an error naming it; a product the job read from
// its source is kept once (every entry of the lumi read the same record).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "lanes/core/Lumi.h"
#include "lanes/core/Module.h"
#include "lanes/core/OutputModule.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/Source.h"
#include "root/RootSupport.h"
#include "root/Serialization.h"

namespace lanes::rootio {

// A product's size in a record that lacks the product.
constexpr std::uint32_t kNotPut = 0xffffffff;

// One record. A run's has luminosityBlock 0. A value type.
struct BlockRecord {
  LumiNumber number;
  std::uint64_t events = 0;
  std::vector<std::uint32_t> sizes;  // per product: its bytes in `blob`, or kNotPut
  std::vector<char> blob;            // the products' bytes, one after another
};

// The records of one level as a file holds them: the products (label, the
// type blob files store: storedTypeName()) and the records, in (run, lumi)
// order. A value type.
struct LevelRecords {
  std::vector<std::pair<std::string, std::string>> products;
  std::vector<BlockRecord> records;
};

// A file's records; `kept` is false in a file written before lanes kept
// records (its lumis come from the events' ids alone).
struct BlockRecords {
  bool kept = false;
  LevelRecords lumis, runs;
  LevelRecords& of(Level level) { return level == Level::Run ? runs : lumis; }
  LevelRecords const& of(Level level) const { return level == Level::Run ? runs : lumis; }
};

// "lumi" or "run", for messages.
char const* levelName(Level level);
// "lumi 3:7" or "run 3", for messages.
std::string blockName(Level level, LumiNumber number);

// How the records of numbers and of std::vectors of numbers merge when
// nothing else says (a source's input files that both record a lumi):
// Lumi.h's mergeInto of the product's own type; nullptr for other types.
MergeProducts mergerOfType(RootType const& type);

// The records of one level, one per number, merged as the header says.
// Externally synchronised (BlockRecorder locks it).
class RecordSet {
 public:
  struct Product {
    std::string label;
    std::string type;  // storedTypeName()
    std::unique_ptr<ProductSerializer> serializer;
    MergeProducts merge = nullptr;  // nullptr: it does not merge
    bool fromSource = false;        // kept once, never merged
  };
  RecordSet(Level level, std::vector<Product> products) : level_(level), products_(std::move(products)) {}

  // Adds `record` (of this set's products), merged into the record of its
  // number if there is one; throws lanes::Exception naming a product that
  // cannot be merged (or whose bytes do not read back).
  void add(BlockRecord record);
  // The products and records, in (run, lumi) order.
  LevelRecords stored() const;
  std::vector<Product> const& products() const { return products_; }
  Level level() const { return level_; }

 private:
  void merge(BlockRecord& into, BlockRecord const& from) const;
  // The product `p` of `from` merged into that of `into`, both present.
  std::vector<char> merged(std::size_t p, char const* into, std::size_t intoSize, char const* from,
                           std::size_t fromSize, LumiNumber number) const;

  Level level_;
  std::vector<Product> products_;
  std::map<LumiNumber, BlockRecord> records_;
};

// The records an output writes. Thread-safe: add() runs from the end
// transitions of several runs and lumis at once (a lock each level);
// begin(), merge() and stored() run alone.
class BlockRecorder {
 public:
  // Before each job or part, or before the parent of a multi-process job
  // merges the parts: every run and lumi product of the job
  // (JobContext::runRegistry, lumiRegistry), serialised as `kind`. Throws
  // lanes::ConfigurationError naming a product the format cannot store
  // ("FORMAT: lumi product 'p' ..."; keep= selects event products only).
  void begin(ProductRegistry const& runs, ProductRegistry const& lumis, SerializationKind kind,
             std::string const& format);
  // A lumi's or run's record, with the `events` the output wrote in it;
  // throws lanes::Exception naming a product that cannot be merged.
  void add(Lumi const& lumi, std::uint64_t events);
  void add(Run const& run, std::uint64_t events);
  // The records of a part (the file `part`), merged in; throws
  // lanes::Exception naming the part if they hold other products.
  void merge(BlockRecords const& records, std::string const& part);
  // What a file holds.
  BlockRecords stored() const;
  // The products a file lists, before any record (for a format that writes them first).
  std::vector<std::pair<std::string, std::string>> productsOf(Level level) const;

 private:
  struct Records {
    std::unique_ptr<RecordSet> set;
    std::mutex lock;
  };
  Records& of(Level level) { return level == Level::Run ? runs_ : lumis_; }
  Records const& of(Level level) const { return level == Level::Run ? runs_ : lumis_; }
  void add(Level level, Block const& block, LumiNumber number, std::uint64_t events);

  Records lumis_, runs_;
};

// What an output keeps to write its records: the events it wrote in each
// lumi and run in flight (a cell per lane: LumiSum, RunSum) and the
// recorder. Thread-safe: written() for any lanes (each adds to its own
// cell), writeLumi() and writeRun() for several blocks at once; begin() and
// stored() alone.
class OutputRecords {
 public:
  explicit OutputRecords(Module& output) : lumiEvents_(output), runEvents_(output) {}

  // Throws as BlockRecorder::begin() (`format` names the output's plugin).
  void begin(JobContext const& context, SerializationKind kind, std::string const& format);
  // In write(), once `event` is written.
  void written(Event const& event) const;
  void writeLumi(Lumi const& lumi) { recorder_.add(lumi, lumiEvents_.total(lumi)); }
  void writeRun(Run const& run) { recorder_.add(run, runEvents_.total(run)); }
  BlockRecords stored() const { return recorder_.stored(); }
  std::vector<std::pair<std::string, std::string>> productsOf(Level level) const { return recorder_.productsOf(level); }

 private:
  LumiSum<std::uint64_t> lumiEvents_;
  RunSum<std::uint64_t> runEvents_;
  BlockRecorder recorder_;
};

// The records of the parts `files` of a multi-process job of `output` (by
// its runRegistry() and lumiRegistry(); serialised as `kind`), each read by
// `read`, merged into one; throws lanes::Exception naming a part.
using ReadRecords = std::function<BlockRecords(std::string const& file)>;
BlockRecords mergedRecords(OutputModule const& output, SerializationKind kind, std::string const& format,
                           std::vector<std::string> const& files, ReadRecords const& read);

// Throws lanes::Exception "cannot read 'PATH': its LEVEL records are
// malformed (WHY)" unless every record of `records` has a size per product
// and its sizes add up to its bytes.
void requireConsistent(LevelRecords const& records, Level level, std::string const& path);

}  // namespace lanes::rootio
