#pragma once
// What a blob source (root-events, pds, hdf5) knows of its input's runs and
// lumis: the stretches of consecutive events of one run and lumi, from the
// ids the files store (no event's products read), and the run and lumi
// records the files keep (BlockRecords.h), which it offers as run and lumi
// products (Source::readRun, readLumi).
//
// Every entry of a lumi gets the whole record of its number: the merge of
// that number's records in every input file (a lumi split across files has
// a record in each; numbers and vectors of numbers merge, another type
// cannot). A lumi recorded without any event in the input is an empty lumi
// (LumiStretch::emptyBefore), among the lumis of its run, so that the run
// does not come back: before the first stretch of a greater lumi of its run
// (in the input's order), else after the run's last stretch; the lumis of a
// run without events, before the first stretch of a greater number, or at
// the input's end. (A file's events are in the order they finished, not in
// the order of their numbers.) A file written before lanes kept records has
// its lumis from its ids alone.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lanes/core/Source.h"
#include "root/BlobReader.h"
#include "root/BlockRecords.h"

namespace lanes::rootio {

// Built by one thread (the files in the input's order: each one's ids, then
// its records; then finish()); immutable and so thread-safe afterwards.
class InputBlocks {
 public:
  // The run or lumi products a source declares for `records` (its first
  // input file's, serialised as `kind`); throws lanes::Exception naming a
  // class without a dictionary.
  static std::vector<StoredProduct> productsOf(LevelRecords const& records, std::string const& path,
                                               SerializationKind kind);

  // The runs and lumis of the next `count` events, in the input's order.
  void addEvents(std::uint32_t const* runs, std::uint32_t const* lumis, std::size_t count);
  // The records of the file whose ids come (or came) with them, serialised
  // as `kind`; throws lanes::Exception naming the file, and adds nothing,
  // if it keeps other products than the first file, or malformed records.
  void addRecords(BlockRecords records, std::string const& path, SerializationKind kind);
  // The run or lumi products the source declares: the first file's.
  std::vector<ProductDescription> products(Level level) const;
  // Places the lumis recorded without events.
  void finish();

  std::uint64_t events() const { return events_; }
  LumiStretch stretchAt(std::uint64_t ordinal) const;
  // The products of the record of `number` (a run's: luminosityBlock 0) into
  // `slots` (empty), indexed as the first file lists them; none if nothing
  // records it. Throws lanes::Exception naming the file whose bytes do not
  // read back, or a product that two files record and that cannot be merged.
  void read(Level level, LumiNumber number, ProductSlot* slots) const;

 private:
  struct Stretch {
    LumiNumber lumi;
    std::uint64_t first;
    std::vector<LumiNumber> emptyBefore;
  };
  // A file that keeps records: its path, and its products of each level read back.
  struct File {
    std::string path;
    std::vector<StoredProduct> lumis, runs;
  };
  struct Stored {
    std::size_t file;
    BlockRecord record;
  };
  void readRecord(Level level, Stored const& stored, ProductSlot* slots) const;

  std::vector<Stretch> stretches_;
  std::uint64_t events_ = 0;
  std::vector<LumiNumber> emptyAtEnd_;
  bool declared_ = false;  // by the first file
  std::string declaredBy_;
  BlockRecords declaredProducts_;  // their product lists only
  std::vector<File> files_;
  std::map<LumiNumber, std::vector<Stored>> lumis_, runs_;
  std::vector<MergeProducts> lumiMerges_, runMerges_;  // per product (mergerOfType)
};

}  // namespace lanes::rootio
