#pragma once
// The `rntuple` source: events from an RNTuple in one or more ROOT files,
// every selected top-level field a product, each read only when consumed.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "lanes/core/Exception.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/ReadingNote.h"
#include "lanes/core/Source.h"
#include "root/InputFiles.h"
#include "root/InputLumis.h"
#include "root/ObjectPool.h"

namespace ROOT {
class RFieldBase;
}

namespace lanes::rootio {

// Shared use (handles=shared): externally synchronised by the scheduler's
// serial source queue. With handles=lane, the default, each lane gets a
// replica with readers of its own, so lanes read concurrently; replicas
// share only the layout, immutable but for the files' entry counts, which
// any replica may learn first.
// Each copy keeps an ObjectPool per object field: an object product is a view
// of a pooled object (ProductSlot::lend), read into again for a later event
// once the event that had it releases its slots.
class NTupleSource : public Source {
 public:
  // Options: file=PATH (repeatable) or files=LIST, ntuple=NAME (Events),
  // fields=GLOB and exclude=GLOB (repeatable), handles=shared|lane (default
  // lane), chunk=N (handles=lane: each lane takes N consecutive entries at a
  // time; default the first file's first cluster, so that no two lanes unzip
  // the same pages), cache=true|false (RNTuple's cluster read-ahead; default true),
  // imt=true|false (ROOT implicit multi-threading to decompress),
  // skip-bad-files=true|false (see countOrSkip: opens every file now, and
  // leaves out those that cannot be read or lack the RNTuple or a field),
  // unreadable=refuse|skip (UnreadableProducts.h: the selected fields of the
  // first file that cannot be read here, found by unreadableFields()),
  // dictionaries=DIR (as the root source's: real dictionaries for the
  // classes of the first file's fields that have none). Without it, a field
  // of a type without a dictionary is read emulated (see EmulatedRecord.h
  // and emulatedField()): an EmulatedRecord product, which no ROOT output
  // can write.
  explicit NTupleSource(Options const& options);
  ~NTupleSource() override;

  bool next(SourceEvent& event) override;
  bool skip(std::uint64_t count) override;
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  void readProducts(SourceEvent const& event, ProductIndex const* products, std::size_t count,
                    ProductSlot* slots) override;
  std::unique_ptr<Source> replicate() const override;
  std::unique_ptr<Source> lookAhead() const override;
  bool at(std::uint64_t ordinal, SourceEvent& event) override;
  std::uint64_t replicaChunk() const override;
  // Known when every file is counted: one file, or skip-bad-files=true.
  std::optional<std::uint64_t> eventCount() const override;
  std::vector<std::string> fileList() const override;
  std::uint64_t fileEntries(std::size_t file) override;
  void learnFileEntries(std::size_t file, std::uint64_t entries) override;
  // Closes the files this copy holds open: RNTuple's cluster cache reads
  // ahead on a thread of each reader, which a fork would not copy.
  void beforeFork() override;
  std::string origin() const override;
  std::string details() const override;
  // Runs and lumis, as the root source's (TreeSource.h, InputLumis.h):
  // NanoAOD's Runs and LuminosityBlocks as RNTuples of those names.
  std::optional<LumiStretch> stretchAt(std::uint64_t ordinal) override;
  void readRun(std::uint32_t run, ProductSlot* slots) override;
  void readLumi(LumiNumber lumi, ProductSlot* slots) override;

  struct Layout;

 private:
  struct OpenFile;

  NTupleSource(Options const& options, PluginOptions const& checked);
  explicit NTupleSource(std::shared_ptr<Layout const> layout);

  bool position(std::uint64_t entry, SourceEvent& event);
  // Counts files until global `entry` is counted (see FileSequence::reach);
  // false past the end.
  bool reach(std::uint64_t entry);
  std::pair<OpenFile&, std::uint64_t> fileOf(std::uint64_t entry);
  std::unique_ptr<OpenFile> open(std::size_t file) const;
  // Reads `product` of entry `local` of `file` into `slot`.
  void readProduct(OpenFile& file, std::uint64_t local, std::size_t product, ProductSlot& slot);
  // Reads an emulated field's value of `entry` (of the open file) into `slot`.
  void readRecord(ROOT::RFieldBase& field, std::uint64_t entry, ProductSlot& slot) const;
  // "cannot read field F of entry E in FILE: why", for the current file.
  Exception readError(std::string const& field, std::uint64_t entry, std::string const& why) const;
  // What this copy reads, for a report of a crash inside ROOT: `field` at
  // `entry` of the file of the last position or read.
  ReadingNote noteOf(char const* field, std::uint64_t entry) const;

  void makePools();
  // The source's run and lumi products, declared from the layout's records.
  void declareRecords();
  // Every file's lumis and records from `first` on, read into `layout` as the
  // source is built: the products of a run or lumi sum its rows of every
  // file, which no copy could know from the files it reached.
  void readAllLumis(Layout& layout, std::size_t first);
  // Id `id` (0 run, 1 luminosityBlock, 2 event) of entry `local` of `file`.
  std::uint64_t idOf(OpenFile& file, std::size_t id, std::uint64_t local) const;
  // The lumis of file `index` (`rows`: LumiRows), read from `file`, open.
  FileLumis lumisIn(OpenFile& file, LumiRows rows) const;
  // The lumis of file `index`, read from the file this copy opens for it if no copy has yet.
  FileLumis const& lumisOf(std::size_t index);

  std::shared_ptr<Layout const> layout_;
  std::vector<ObjectPool::Owner> pools_;  // per product: object fields only
  FileSequence sequence_{{}};  // this copy's: files are counted as they are reached
  RecentlyOpened<OpenFile> open_;
  bool perLane_ = false;
  std::uint64_t nextEntry_ = 0;
  std::size_t originFile_ = 0;  // the file of the last position or read, for errors
};

}  // namespace lanes::rootio
