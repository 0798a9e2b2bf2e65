#pragma once
// Runs and lumis as the `root` and `rntuple` sources read them: where each
// input file's lumis lie (its events' run and luminosityBlock ids), the lumis
// its NanoAOD `LuminosityBlocks` tree (RNTuple) lists without any event, and
// the run and lumi products of its `Runs` and `LuminosityBlocks` records.
//
// What a source says of them (Source::stretchAt, readRun, readLumi):
// - the events' ids rule: a lumi is each stretch of consecutive events of
//   one (run, luminosityBlock) in a file, cut at the file's end (the job
//   joins a lumi that goes on in the next file);
// - a row of a file's LuminosityBlocks tree that none of the file's events
//   has is an empty lumi at the file's end: it begins and ends as the job
//   reaches the next file's first event (or the input's end), before it;
// - the run (lumi) products of (run, lumi) are the sum of its rows over
//   every input file, the same for each of its entries and in every process
//   of a job (so an output that merges entries takes them once); a lumi
//   that no file lists gets none.

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lanes/core/Lumi.h"
#include "lanes/core/Product.h"
#include "lanes/core/Source.h"
#include "root/InputFiles.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

// The columns of the run and lumi records (kLumiRecords, kRunRecords) that
// are no products: the ids, and the events lanes' outputs count.
bool isRecordKey(std::string const& column);

// What one input file says of its runs and lumis.
struct FileLumis {
  struct Span {
    LumiNumber lumi;
    std::uint64_t first = 0;  // the file's entries [first, end)
    std::uint64_t end = 0;
  };
  std::vector<Span> spans;         // in entry order
  std::vector<LumiNumber> empties;  // its LuminosityBlocks rows that no event of it has, in row order
  std::uint64_t lumisWithoutRow = 0;  // its lumis that its LuminosityBlocks rows do not list

  // Adds entry `entry` of `lumi` (entries in order); throws lanes::Exception
  // naming `where` if the run or lumi number is 0.
  void add(std::uint64_t entry, LumiNumber lumi, std::string const& where);
  // Given the file's LuminosityBlocks rows, in order: fills empties and lumisWithoutRow.
  void compare(std::vector<LumiNumber> const& rows);
};

// Which LuminosityBlocks rows a file's lumis are compared with: none (a job
// that reads a record tree as its events), the file's where it has the tree,
// or its rows always (records with products: a file without the tree lists
// none of its lumis).
enum class LumiRows { Ignored, WhereListed, Required };

// Each input file's FileLumis, built once by whichever copy of a source
// first needs them and shared by all copies, as EntryCounts shares the
// files' entry counts. Thread-safe: a copy that builds a file's lumis holds
// that file's lock meanwhile, and a copy that needs them waits for it.
class LumiIndex {
 public:
  explicit LumiIndex(std::size_t files);

  // The lumis of `file`, made by `build()` (which may open the file) unless
  // known. Throws what build() throws (the next call builds again).
  template <typename Build>
  FileLumis const& of(std::size_t file, Build build) {
    std::lock_guard const hold(locks_[file]);
    if (!files_[file]) files_[file] = std::make_unique<FileLumis const>(build());
    return *files_[file];
  }
  // A file known to have no lumis: one skip-bad-files=true left out.
  void learnNone(std::size_t file);

 private:
  std::unique_ptr<std::mutex[]> locks_;
  std::vector<std::unique_ptr<FileLumis const>> files_;
};

// The stretch of `sequence` that holds `ordinal` (Source::stretchAt), where
// `lumisOf(file)` gives each file's FileLumis and `reach(ordinal)` counts
// the files up to it (false past the input's end). Empty lumis come with the
// stretch of the first event after their file (or the input's end), asked
// for at that very ordinal: one process of a multi-process job does.
template <typename LumisOf, typename Reach>
LumiStretch stretchOf(FileSequence const& sequence, std::uint64_t ordinal, LumisOf lumisOf, Reach reach);

// The run and lumi products of the input's Runs and LuminosityBlocks
// records: numbers and vectors of numbers, each row's added to its run's
// (lumi's) by (run, lumi). Filled by the source's constructor; immutable
// after, so shared by every copy.
class InputRecords {
 public:
  // One product: a column of the first file's tree.
  struct Column {
    std::string label;
    Fundamental const* fundamental = nullptr;
    bool array = false;  // a std::vector of it (a leaf array, an RVec, a std::vector)
  };

  // Declares the columns of `level`, in the order the source declares them.
  void declare(Level level, std::vector<Column> columns);
  std::vector<Column> const& columns(Level level) const { return levels_[index(level)].columns; }
  // The source's declarations: ProductDescription with its merge.
  std::vector<ProductDescription> descriptions(Level level) const;
  bool empty() const { return columns(Level::Lumi).empty() && columns(Level::Run).empty(); }

  // Adds a row's `values` (per column) to the row of `key` (a run's lumi is
  // 0); throws lanes::Exception naming `where` and a product that cannot add
  // up (vectors of different sizes; bools).
  void add(Level level, LumiNumber key, std::vector<ProductSlot>& values, std::string const& where);
  // Fills `slots` (per column) with the products of `key`, if any row has it.
  void read(Level level, LumiNumber key, ProductSlot* slots) const;

  // Counts the disagreements of a file's LuminosityBlocks tree with its events, for details().
  void count(FileLumis const& lumis);
  // {"lumi_records": {"runs", "lumis", "rows_without_events", "lumis_without_row"}}: the runs and lumis
  // with products, and the disagreements counted; "" if empty().
  std::string details() const;

 private:
  struct LevelRecords {
    std::vector<Column> columns;
    std::map<LumiNumber, std::vector<ProductSlot>> values;
  };
  std::uint64_t rowsWithoutEvents_ = 0;
  std::uint64_t lumisWithoutRow_ = 0;
  static std::size_t index(Level level) { return level == Level::Run ? 1 : 0; }
  LevelRecords levels_[2];
};

// The lumis of a file of `entries` events, `idOf(entry)` each one's (run,
// luminosityBlock), compared with its LuminosityBlocks `rows` if it has the
// tree; throws lanes::Exception naming `where` and an entry of run or lumi 0.
template <typename IdOf>
FileLumis fileLumis(std::uint64_t entries, IdOf idOf, std::optional<std::vector<LumiNumber>> const& rows,
                    std::string const& where) {
  FileLumis lumis;
  for (std::uint64_t entry = 0; entry < entries; ++entry) lumis.add(entry, idOf(entry), where);
  if (rows) lumis.compare(*rows);
  return lumis;
}

// What the copies of a `root` or `rntuple` source share of the input's runs
// and lumis: each file's lumis, and the records. Set up by the source's
// constructor; immutable after, but for the index, which is thread-safe.
struct SourceLumis {
  explicit SourceLumis(std::size_t files) : index(std::make_shared<LumiIndex>(files)) {}

  // As the source is built, once skip-bad-files=true has counted the files:
  // `skipped` files have no lumis, and `columnsOf(name)` gives the record
  // columns of the first file's tree (RNTuple) `name`, unless the source
  // reads one of those as its `events`.
  template <typename ColumnsOf>
  void setUp(std::vector<std::string> const& files, SkippedFiles const& skipped, std::string const& events,
             ColumnsOf columnsOf) {
    for (std::size_t file = 0; file < files.size(); ++file) {
      if (skipped.contains(files[file])) index->learnNone(file);
    }
    readsRecords = events != kLumiRecords && events != kRunRecords;
    if (!readsRecords) return;
    records.declare(Level::Lumi, columnsOf(kLumiRecords));
    records.declare(Level::Run, columnsOf(kRunRecords));
  }
  // Which rows a file's lumis are compared with: all of them where the
  // records have products (every file is read as the source is built).
  LumiRows rows() const {
    if (!readsRecords) return LumiRows::Ignored;
    return records.empty() ? LumiRows::WhereListed : LumiRows::Required;
  }

  std::shared_ptr<LumiIndex> index;
  bool readsRecords = true;
  InputRecords records;
};

// Makes a product slot of column `column` from a value ROOT read: a scalar
// at `value`, or `count` values there.
void putRecordValue(InputRecords::Column const& column, void const* value, std::size_t count, ProductSlot& slot);

// ---------------------------------------------------------------- implementation

template <typename LumisOf, typename Reach>
LumiStretch stretchOf(FileSequence const& sequence, std::uint64_t ordinal, LumisOf lumisOf, Reach reach) {
  bool const inInput = reach(ordinal);
  // The empty lumis of the files that end at `ordinal` (an empty file ends where it begins).
  auto const emptiesBefore = [&](std::size_t next) {
    std::vector<std::size_t> files;
    for (auto file = next; file-- > 0;) {
      auto const [first, entries] = sequence.entriesOf(file);
      if (first + entries != ordinal) break;
      files.push_back(file);
    }
    std::vector<LumiNumber> empties;
    for (auto file = files.rbegin(); file != files.rend(); ++file) {
      auto const& lumis = lumisOf(*file).empties;
      empties.insert(empties.end(), lumis.begin(), lumis.end());
    }
    return empties;
  };
  if (!inInput) {
    bool const atEnd = ordinal == sequence.entries();
    return {{}, ordinal, ordinal, atEnd ? emptiesBefore(sequence.filesCounted()) : std::vector<LumiNumber>{}};
  }
  auto const [file, local] = sequence.locate(ordinal);
  auto const first = sequence.entriesOf(file).first;
  auto const& spans = lumisOf(file).spans;
  auto span = std::upper_bound(spans.begin(), spans.end(), local,
                               [](std::uint64_t entry, FileLumis::Span const& s) { return entry < s.first; });
  --span;  // spans cover every entry of the file from 0
  LumiStretch stretch{span->lumi, first + span->first, first + span->end};
  if (local == 0) stretch.emptyBefore = emptiesBefore(file);
  return stretch;
}

}  // namespace lanes::rootio
