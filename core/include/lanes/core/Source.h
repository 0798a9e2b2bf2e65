#pragma once
// Sources yield events and read their products on demand (delayed reading):
// a product is read only when a module or output consumes it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lanes/core/EventId.h"
#include "lanes/core/Product.h"

namespace lanes {

// Where a lane's current event lives in the source.
struct SourceEvent {
  EventId id;
  std::uint64_t entry = 0;  // source-defined: entry number, cache slot, ...
};

// Which run and lumi.
struct LumiNumber {
  std::uint32_t run = 1;
  std::uint32_t luminosityBlock = 1;
  friend bool operator==(LumiNumber const& a, LumiNumber const& b) {
    return a.run == b.run && a.luminosityBlock == b.luminosityBlock;
  }
  friend bool operator!=(LumiNumber const& a, LumiNumber const& b) { return !(a == b); }
  friend bool operator<(LumiNumber const& a, LumiNumber const& b) {
    return a.run != b.run ? a.run < b.run : a.luminosityBlock < b.luminosityBlock;
  }
};

// A stretch of consecutive events of one run and lumi: the ordinals [first,
// end). An empty stretch (first == end) is the input's end.
struct LumiStretch {
  LumiNumber lumi;
  std::uint64_t first = 0;
  std::uint64_t end = 0;
  // Lumis the input lists without any event (NanoAOD's LuminosityBlocks
  // tree) that come right before the stretch, in order: each still gets its
  // begin and end transitions, as CMSSW processes empty lumis.
  std::vector<LumiNumber> emptyBefore = {};
};

// Externally synchronised by the scheduler. A shared source is used by all
// lanes through one serial queue: next() and read() are never called
// concurrently, unless concurrentReads() allows read() to be. A source that
// can be replicated gets one copy per lane instead; each copy is
// lane-confined and addressed by event ordinal through at().
class Source {
 public:
  virtual ~Source() = default;

  // The products every event offers, declared by the constructor.
  std::vector<ProductDescription> const& products() const { return products_; }

  // Shared use: advances to the next event; false when there are no more.
  virtual bool next(SourceEvent& event) = 0;

  // Shared use: moves past `count` events without reading them (a process of
  // a multi-process job skips the events of the others); false if the
  // source ended first. The default calls next() `count` times.
  virtual bool skip(std::uint64_t count);

  // Reads product `product` (an index into products()) of `event` into `slot`.
  virtual void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) = 0;

  // Reads the products `products[0..count)` of `event`, each into its slot of
  // `slots` (indexed by product), in that order: what a lane reads of an
  // event in one go. Throws as read() does, at the first product it cannot
  // read (its event fails: the others are not read). The default calls
  // read() for each; a file source does its per-event work once here.
  virtual void readProducts(SourceEvent const& event, ProductIndex const* products, std::size_t count,
                            ProductSlot* slots) {
    for (std::size_t i = 0; i < count; ++i) read(event, products[i], slots[products[i]]);
  }

  // True if read() may run concurrently with itself and with next()
  // (in-memory sources), so the scheduler reads inline in any lane.
  virtual bool concurrentReads() const { return false; }

  // Replicated use: a lane-confined copy, or nullptr if this source must be
  // shared. Copies are driven by at(), which positions on the event of the
  // given ordinal (0, 1, 2, ... across the whole job) and returns false past
  // the end.
  virtual std::unique_ptr<Source> replicate() const { return nullptr; }
  virtual bool at(std::uint64_t ordinal, SourceEvent& event) { return false; }
  // A copy that reads events' ids ahead through at(), without moving this
  // source (JobContext::hasEventNumber), or nullptr. A replica by default;
  // a shared source of files makes one for the purpose too.
  virtual std::unique_ptr<Source> lookAhead() const { return replicate(); }
  // Replicated use: how many consecutive ordinals a lane claims at a time.
  // A file source decompresses a cluster of entries at once; lanes that took
  // alternate events would each decompress, and open, everything.
  virtual std::uint64_t replicaChunk() const { return 1; }
  // Replicated use: the run the scheduler settled on, replicaChunk() or fewer
  // (a short job's events are shared out so that every lane gets runs).
  // Called once, before replicate(); copies made afterwards keep it. Runs
  // begin at multiples of it and a copy goes forwards through one, but near
  // the job's end a lane that has finished takes the back half of another
  // lane's run: a copy may then go back, to an ordinal anywhere in a run,
  // which still ends at a multiple of the chunk (or at the job's end).
  virtual void useReplicaChunk(std::uint64_t chunk) { (void)chunk; }

  // How many events next() yields, when the source knows before the job
  // starts (a given count); nullopt when it does not, or never ends.
  virtual std::optional<std::uint64_t> eventCount() const { return std::nullopt; }
  // True if next() never returns false: a job on it needs an event limit,
  // or must be asked for explicitly (JobConfig::endless).
  virtual bool endless() const { return false; }
  // True if the event of ordinal k is always event number k + 1, so that the
  // job knows which event numbers it will see (JobContext::lastEventNumber).
  virtual bool numbersByOrdinal() const { return false; }

  // A source that reads several input files one after another (an ordinal
  // counts on from one file's last entry to the next file's first): its
  // files, so that the processes of a job may each take whole files
  // (--chunk file); empty for any other source.
  virtual std::vector<std::string> fileList() const { return {}; }
  // Shared use, before the first event: the entries of input file `file`
  // (an index into fileList()), opening it unless they are known already;
  // throws lanes::Exception naming the file if it cannot be read.
  virtual std::uint64_t fileEntries(std::size_t file) { return 0; }
  // Shared use, before the first event: `file`'s entries, counted by another
  // process; moving past the file then never opens it.
  virtual void learnFileEntries(std::size_t file, std::uint64_t entries) {}

  // Called once in every process forked from the one that built the source
  // (a multi-process job's worker), before it reads; on the job's source and
  // on every lane's copy. A source that keeps files open reopens them here:
  // a descriptor opened before the fork shares its file offset with the
  // other processes, so a reader that seeks and then reads (ROOT's TFile)
  // could read where another process just moved it. Throws lanes::Exception
  // naming the file if it cannot be reopened.
  virtual void afterFork() {}

  // Called once in the process that built the source, before it forks the
  // workers of a multi-process job (after it processed the job's first
  // events itself, if any), on the job's source and on every lane's copy. A
  // source whose open files run threads of their own (a read-ahead thread)
  // closes them here: a fork copies no thread, and the workers open what they
  // read. Throws lanes::Exception if it cannot.
  virtual void beforeFork() {}

  // Runs and luminosity blocks: the stretch of consecutive events of one run
  // and lumi that holds the event of `ordinal` (or, past the input's end, the
  // empty stretch there, with the input's last empty lumis). A stretch may
  // stop at a file's end while the next file's first events go on with the
  // same run and lumi: the job joins them into one lumi. Throws
  // lanes::Exception naming the file if the ids cannot be read, or hold a
  // run or lumi number 0. Called on a lane's copy (replicated use) or under
  // the serial queue (shared use), in no particular order of ordinals. The
  // default, nullopt, leaves the job to read the ids ahead through at() of a
  // copy. A source that numbers events by ordinal is never asked: the job
  // numbers their runs and lumis (the events-per-lumi= options of every SPEC).
  virtual std::optional<LumiStretch> stretchAt(std::uint64_t ordinal) { return std::nullopt; }

  // The run and lumi products every run and lumi offers (NanoAOD's Runs and
  // LuminosityBlocks trees), declared by the constructor; readRun() and
  // readLumi() read them, each product into its slot of `slots` (indexed as
  // runProducts() and lumiProducts()), as the run or lumi begins. Called as
  // stretchAt() is. A lumi the input does not list gets none: its slots stay
  // empty. Throw lanes::Exception naming the file.
  std::vector<ProductDescription> const& runProducts() const { return runProducts_; }
  std::vector<ProductDescription> const& lumiProducts() const { return lumiProducts_; }
  virtual void readRun(std::uint32_t run, ProductSlot* slots) {}
  virtual void readLumi(LumiNumber lumi, ProductSlot* slots) {}

  // The file (or other origin) the current events come from, for error messages.
  virtual std::string origin() const { return {}; }

  // What the source has to say about its input for the run report, as the
  // text of a JSON object ("" for nothing): a file source's files that it
  // skipped, say. Known once the source is built; it does not change after.
  virtual std::string details() const { return {}; }

 protected:
  template <typename T>
  void declare(std::string label) {
    products_.push_back({std::move(label), typeid(T), {}});
  }
  void declare(ProductDescription description) { products_.push_back(std::move(description)); }
  void declareRunProduct(ProductDescription description) { runProducts_.push_back(std::move(description)); }
  void declareLumiProduct(ProductDescription description) { lumiProducts_.push_back(std::move(description)); }

 private:
  std::vector<ProductDescription> products_;
  std::vector<ProductDescription> runProducts_;
  std::vector<ProductDescription> lumiProducts_;
};

}  // namespace lanes
