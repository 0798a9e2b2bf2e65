#pragma once
// The `root-events` source: reads one or more files the `root-events`
// output wrote, one after another. One shared file handle reads each
// entry's bytes (serialised, as every shared source); opening the batch,
// event and product frames and deserialising each product run
// concurrently, in the lanes that read them.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/Source.h"
#include "root/BlobReader.h"
#include "root/InputBlocks.h"
#include "root/InputFiles.h"

class TBranch;

namespace lanes::rootio {

class BasketCheck;

// Externally synchronised by the scheduler's serial source queue: next() and
// skip() read the file. read() may run concurrently with itself and with
// next() (concurrentReads()): it touches only its event's record, which
// next() made and frees only when the lane that held it asks for its next
// event, and the record's batch, whose frame is opened once (std::call_once).
// An event's record holds its batch's bytes and its file's Format, so the
// source closes a file as soon as it moves to the next; its object products
// are read into its lane's objects, which the lane's next record takes over
// (ReusedObjects). The runs and lumis of every file (the ids of its entries,
// not their blobs) and their records are read once, when the job first asks
// where a lumi lies (root/InputBlocks.h), and shared with the copy that
// reads the records (lookAhead()), which may read them first.
class EventsSource : public Source {
 public:
  // Options: file=PATH (repeatable) or files=LIST (InputFiles.h), and
  // skip-bad-files=true|false (countOrSkip: every file is opened now, and
  // those that cannot be read or hold other products are left out). The
  // first file declares the products; the others must hold the same (their
  // serialisation and compression may differ: each file records its own).
  explicit EventsSource(Options const& options);
  ~EventsSource() override;

  bool next(SourceEvent& event) override;
  bool skip(std::uint64_t count) override;
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  bool concurrentReads() const override { return true; }
  // Reopens the cursor's file (the records in flight hold their bytes).
  void afterFork() override;
  std::string origin() const override { return files_[fileIndex_]; }
  std::string details() const override { return skipped_.details(); }
  std::optional<LumiStretch> stretchAt(std::uint64_t ordinal) override { return blocks().stretchAt(ordinal); }
  void readRun(std::uint32_t run, ProductSlot* slots) override { blocks().read(Level::Run, {run, 0}, slots); }
  void readLumi(LumiNumber lumi, ProductSlot* slots) override { blocks().read(Level::Lumi, lumi, slots); }
  // A copy that reads the records, and the events' ids through at() (never
  // a blob; ordinals in increasing order), where the files record run or
  // lumi products; else none.
  std::unique_ptr<Source> lookAhead() const override;
  bool at(std::uint64_t ordinal, SourceEvent& event) override;

 private:
  struct Record;
  struct Format;
  struct OpenFile;
  struct SharedBlocks;
  EventsSource(Options const& options, PluginOptions const& checked);
  EventsSource(EventsSource const& other, std::shared_ptr<SharedBlocks> blocks);

  // The runs, lumis and records of every file, read on first use.
  rootio::InputBlocks const& blocks();
  // The runs and lumis of every entry of `file` (file `index`) into `blocks`.
  void indexIds(std::size_t index, OpenFile& file, rootio::InputBlocks& blocks) const;

  // Opens file `index`; the first declares the products, a later one must
  // hold the same. Throws lanes::Exception naming the file.
  std::unique_ptr<OpenFile> open(std::size_t index);
  // Moves to the next entry's ids, in this file or a later one; false past the last.
  bool nextEntry();
  std::shared_ptr<StoredBatch> loadBlob();
  // Before the cursor's entry is read from `branch`: throws fail() naming
  // the branch if `check` finds its basket damaged.
  void requireBaskets(BasketCheck& check, TBranch const& branch) const;
  // Throws "cannot read 'FILE' entry N: what" for entry `entry` of file `file`.
  [[noreturn]] void fail(std::size_t file, std::uint64_t entry, std::string const& what) const;

  std::vector<std::string> files_;
  SkippedFiles skipped_;
  std::shared_ptr<EntryCounts> counts_;  // skip-bad-files=true: 0 for a skipped file
  std::vector<bool> readable_;           // the files not skipped
  std::size_t first_ = 0;                // the first readable file
  std::vector<std::string> labels_;
  std::vector<std::string> types_;  // the first file's, which later files must match
  std::string declaredBy_;  // that first file
  std::size_t fileIndex_ = 0;
  std::unique_ptr<OpenFile> file_;  // the file of the cursor

  // The cursor: the current entry's ids, and the next event in it.
  std::int64_t entry_ = -1;
  std::unique_ptr<StoredBatch> ids_;
  std::size_t index_ = 0;
  std::shared_ptr<StoredBatch> loaded_;  // the current entry's bytes, once an event of it is used
  std::vector<TClass*> classes_;  // of the products (classesOf())
  HeldEvents<Record> records_;
  std::uint64_t position_ = 0;  // a look-ahead copy's: the ordinal of the cursor's event
  std::shared_ptr<SharedBlocks> blocks_;
};

}  // namespace lanes::rootio
