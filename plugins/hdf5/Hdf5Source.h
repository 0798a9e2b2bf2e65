#pragma once
// The `hdf5` source: the events of one or more files the `hdf5` output
// wrote, either layout, one file after another, every product of it read
// back as the type the original had (the `type` attribute of its group),
// each only when consumed.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hdf5/Hdf5Support.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/Source.h"
#include "root/InputBlocks.h"
#include "root/InputFiles.h"
#include "root/ReusedObjects.h"

namespace lanes::hdf5 {

// Shared use only: externally synchronised by the scheduler's serial source
// queue. HDF5 calls hold lockLibrary(). Each product is read `batch` events
// at a time into a window of its own. Every file is opened at start-up (an
// HDF5 file opens in well under a millisecond), so that one that cannot be
// read, or holds other products than the first, is named before the job
// runs; the few most recently read stay open, since events in flight may
// still read from a file the source has moved past. Vectors and objects are
// read into the objects of the lane's event before (ReusedObjects). The
// runs and lumis of every file (their events' ids) and their records are
// read as the files are opened (root/InputBlocks.h), and shared, immutable,
// with the copy that reads the records (lookAhead()).
class Hdf5Source : public Source {
 public:
  // Options: file=PATH (repeatable) or files=LIST (root/InputFiles.h),
  // batch=N (events read at a time, default 1000), skip-bad-files=true|false
  // (leave out, naming them, the files that cannot be read or hold other
  // products than the first good one).
  explicit Hdf5Source(Options const& options);
  ~Hdf5Source() override;

  bool next(SourceEvent& event) override;
  bool skip(std::uint64_t count) override;
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  std::optional<std::uint64_t> eventCount() const override { return sequence_.entries(); }
  std::string origin() const override { return sequence_.files()[originFile_]; }
  std::string details() const override { return skipped_.details(); }
  std::optional<LumiStretch> stretchAt(std::uint64_t ordinal) override { return blocks_->stretchAt(ordinal); }
  void readRun(std::uint32_t run, ProductSlot* slots) override { blocks_->read(Level::Run, {run, 0}, slots); }
  void readLumi(LumiNumber lumi, ProductSlot* slots) override { blocks_->read(Level::Lumi, lumi, slots); }
  // A copy that reads the records and the events' ids (at(), as next()),
  // where the files record run or lumi products; else none.
  std::unique_ptr<Source> lookAhead() const override;
  bool at(std::uint64_t ordinal, SourceEvent& event) override;

 private:
  struct Product;
  struct OpenFile;
  struct Record;
  static TClass* classOf(Product const& product);
  Hdf5Source(Options const& options, PluginOptions const& checked);
  Hdf5Source(Hdf5Source const& other, std::shared_ptr<rootio::InputBlocks const> blocks);

  // Opens file `index` (counting its events) and adds its runs, lumis and
  // records to `blocks` (the first declares the run and lumi products).
  std::uint64_t openAndIndex(std::size_t index, rootio::InputBlocks& blocks);

  // Opens file `index` and checks that it holds the products this source
  // declared (the first file declares them).
  std::unique_ptr<OpenFile> open(std::size_t index);
  // Opens the file at `path` (layout, products, encoding), checked alone.
  std::unique_ptr<OpenFile> openPath(std::string const& path) const;
  OpenFile& fileAt(std::size_t index);
  // Reads `product`'s window of the events of `file` from `entry` on.
  void load(OpenFile const& file, Product& product, std::uint64_t entry) const;
  // compress=batch blobs: opens the frame of the batch holding `entry` into the window.
  void loadFrame(OpenFile const& file, Product& product, std::uint64_t entry) const;
  // Reads the end offsets of events [first, last) of `product` and checks them.
  void loadOffsets(OpenFile const& file, Product& product, std::uint64_t first, std::uint64_t last) const;

  std::uint64_t batch_;
  bool declared_ = false;  // the first file's products
  rootio::FileSequence sequence_{{}};
  rootio::SkippedFiles skipped_;
  rootio::RecentlyOpened<OpenFile> open_;
  std::size_t originFile_ = 0;
  std::uint64_t next_ = 0;
  // The ids of events [idFirst_, idFirst_ + idWindow_.size()), all of one file.
  std::vector<EventIdRecord> idWindow_;
  std::uint64_t idFirst_ = 0;
  std::vector<TClass*> classes_;  // per product, ReusedObjects'
  rootio::HeldEvents<Record> events_;
  bool declaredRecords_ = false;  // the first file's run and lumi products
  std::shared_ptr<rootio::InputBlocks const> blocks_;
};

}  // namespace lanes::hdf5
