#pragma once
// The run and lumi records a ROOT output writes beside its events, as NanoAOD
// does: one row per (run, lumi) in `LuminosityBlocks` and one per run in
// `Runs` (TTrees, or RNTuples of those names), each with `run`,
// `luminosityBlock` (lumis only), `events` (the events the output wrote in
// it) and every run (lumi) product of the job, the source's and the
// modules'. Rows are kept until the file is written: a lumi that comes back
// later (3, 4, 3), or that several processes each wrote a part of, is merged
// into its row.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lanes/core/Event.h"
#include "lanes/core/Lumi.h"
#include "lanes/core/OutputModule.h"
#include "lanes/core/ProductRegistry.h"
#include "lanes/core/Source.h"
#include "root/OutputSupport.h"
#include "root/Serialization.h"

namespace lanes::rootio {

// The column that counts a row's events.
inline constexpr char const* kEventsColumn = "events";

// One level's rows. Externally synchronised by its TreeRecords.
struct RecordTable {
  struct Row {
    std::uint64_t events = 0;
    std::vector<std::unique_ptr<ProductSlot>> products;  // per column; nullptr: not put
  };

  Level level;
  char const* name;             // kLumiRecords or kRunRecords
  std::vector<Column> columns;  // the level's products, in registry order (Column::index)
  std::vector<MergeProducts> merges;  // per column; nullptr: it does not merge
  std::vector<bool> fromSource;       // per column
  std::vector<std::unique_ptr<ProductSerializer>> copiers;  // per column: copies a product into a row
  std::map<LumiNumber, Row> rows;     // by (run, lumi); a run's lumi is 0
};

// Thread-safe: take() and absorb() may be called concurrently (a global or
// limited output writes lumis side by side); the tables are read only once
// every call has returned (writing the file).
//
// Merging a row: `events` add up; a product the row lacks is taken; a
// module's product is merged through its `merge` (ProductDescription), and
// one that cannot be merged is a one-line error naming it; the source's
// products are the input's records of that run (lumi), the same in every
// entry and every process (the root and rntuple sources sum every file's
// record), so the row keeps the one it has.
class TreeRecords {
 public:
  // The job's run and lumi products (OutputModule::runRegistry(), ...).
  // Throws lanes::ConfigurationError naming a product that ROOT cannot
  // store, or that has the name of a column every row has (run,
  // luminosityBlock, events).
  TreeRecords(ProductRegistry const& runs, ProductRegistry const& lumis);

  // After the block's end transition: its row, with the `events` the
  // output wrote in it. Throws lanes::Exception naming a product that must
  // be merged and cannot.
  void take(Lumi const& lumi, std::uint64_t events);
  void take(Run const& run, std::uint64_t events);
  // A row read back from a file (a part of a multi-process job): `products`
  // per column of the level's table, empty slots for those the row lacks.
  void absorb(Level level, LumiNumber key, std::uint64_t events, std::vector<ProductSlot> const& products);

  RecordTable const& table(Level level) const { return level == Level::Run ? runs_ : lumis_; }
  RecordTable const& lumis() const { return lumis_; }
  RecordTable const& runs() const { return runs_; }

 private:
  RecordTable& table(Level level) { return level == Level::Run ? runs_ : lumis_; }
  template <typename ProductOf>
  void merge(RecordTable& table, LumiNumber key, std::uint64_t events, ProductOf productOf);

  RecordTable lumis_;
  RecordTable runs_;
  std::mutex lock_;
};

// What an output keeps of the job's runs and lumis: it counts each event it
// writes (count(), in write()), and takes each lumi's and run's row after
// its end (keep(), in writeLumi()/writeRun()) into records(), made anew by
// begin() (in beginJob(), or as the parent merges the parts' records).
// Thread-safe as TreeRecords, and count() is lane-confined (a LumiSum): a
// global or limited output calls them concurrently; begin() only while no
// event runs.
class RecordKeeper {
 public:
  explicit RecordKeeper(OutputModule& output) : output_(output), lumiEvents_(output), runEvents_(output) {}

  // Rows for the job's run and lumi products (OutputModule::runRegistry(),
  // lumiRegistry()): the part's, or the parent's that merges the parts'.
  std::unique_ptr<TreeRecords> jobRecords() const;
  TreeRecords& begin() {
    records_ = jobRecords();
    return *records_;
  }
  void count(Event const& event) const {
    ++lumiEvents_[event];
    ++runEvents_[event];
  }
  void keep(Lumi const& lumi) const { records_->take(lumi, lumiEvents_.total(lumi)); }
  void keep(Run const& run) const { records_->take(run, runEvents_.total(run)); }
  // nullptr before begin().
  TreeRecords const* records() const { return records_.get(); }

 private:
  OutputModule& output_;
  std::unique_ptr<TreeRecords> records_;
  LumiSum<std::uint64_t> lumiEvents_;
  RunSum<std::uint64_t> runEvents_;
};

// An output's `details` (JSON text) with the rows it wrote of `records`
// (none: unchanged): {"lumis_written", "runs_written"}, 0 if its file was
// not `written`.
std::string recordDetails(std::string const& details, TreeRecords const* records, bool written);

}  // namespace lanes::rootio
