#pragma once
// The `root` source: events from a TTree in one or more ROOT files, every
// selected top-level branch a product, each read only when consumed.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lanes/core/Exception.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/ReadingNote.h"
#include "lanes/core/Source.h"
#include "root/InputFiles.h"
#include "root/InputLumis.h"
#include "root/ObjectPool.h"

class TBranch;
class TClass;
class TFile;
class TLeaf;
class TTree;

namespace lanes::rootio {

struct Fundamental;
struct UnzippedBasket;

// Shared use (handles=shared): externally synchronised by the scheduler's
// serial source queue, like every shared Source. With handles=lane, the
// default, each lane gets a replica with file handles of its own, so lanes
// read concurrently (where a shared source's reads take turns); replicas
// share only the TreeLayout, immutable but for the files' entry counts,
// which any replica may learn first (atomics).
// A lane's copy reads each branch of a fundamental type, scalar or array,
// and each std::vector of one, a basket at a time (read from baskets): its
// values lie in the basket one after another, as they are in memory but for
// the byte order, and each event's are converted as they are handed over,
// into the object the slot held for the lane's last event. ROOT's GetEntry
// would do a branch's bookkeeping for every entry, and an array's count
// branch's as well, or a vector's streamer's (NanoAOD: 947 such branches of
// 947, flat or as vectors).
// Each copy keeps an ObjectPool per object, array or string branch: such a
// product is a view of a pooled object (ProductSlot::lend), read into again
// for a later event once the event that had it releases its slots; so it is
// valid until then, like any product.
class TreeSource : public Source {
 public:
  // Options: file=PATH (repeatable) or files=LIST, tree=NAME (default Events),
  // id=BRANCH (the event ids are the run, luminosityBlock and event leaves of
  // that leaf-list branch; default: the branches of those names, if any),
  // branches=GLOB and exclude=GLOB (repeatable), handles=shared|lane (default lane),
  // readahead=N (each branch is read N entries at a time, default 64, fewer
  // where that would hold over 8 MiB of products (defaultReadAhead); a lane's
  // copy reads branches of fundamental types a basket at a time instead, and
  // 1 reads every branch entry by entry; N at a time, because
  // reading one branch for consecutive entries keeps ROOT's branch and basket
  // in the CPU cache, where reading every branch of one event after another
  // touches hundreds of branch objects per event), chunk=N (handles=lane:
  // each lane takes N consecutive entries at a time; default the first
  // file's first cluster, so that no two lanes decompress the same baskets),
  // cache=BYTES (read-ahead TTreeCache; 0 disables; default ROOT's automatic
  // size), imt=true|false (ROOT implicit multi-threading to decompress),
  // dictionaries=DIR (see Dictionaries.h: without it, classes that have no
  // dictionary are EmulatedObject products, which no file output can write),
  // skip-bad-files=true|false (see countOrSkip: opens every file now, and
  // leaves out those that cannot be read, lack the tree or a branch),
  // unreadable=refuse|skip (UnreadableProducts.h: the selected branches of
  // the first file that cannot be read here, whyUnreadable()).
  explicit TreeSource(Options const& options);
  ~TreeSource() override;

  bool next(SourceEvent& event) override;
  bool skip(std::uint64_t count) override;
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  void readProducts(SourceEvent const& event, ProductIndex const* products, std::size_t count,
                    ProductSlot* slots) override;
  std::unique_ptr<Source> replicate() const override;
  std::unique_ptr<Source> lookAhead() const override;
  void useReplicaChunk(std::uint64_t chunk) override;
  bool at(std::uint64_t ordinal, SourceEvent& event) override;
  std::uint64_t replicaChunk() const override;
  // Known when every file is counted: one file, or skip-bad-files=true.
  std::optional<std::uint64_t> eventCount() const override;
  std::vector<std::string> fileList() const override;
  std::uint64_t fileEntries(std::size_t file) override;
  void learnFileEntries(std::size_t file, std::uint64_t entries) override;
  // Closes the files this copy holds open, with what was read ahead from
  // them, and the first file as the source was built from it: reading goes
  // on through files this process opens itself.
  void beforeFork() override;
  void afterFork() override;
  std::string origin() const override;
  std::string details() const override;
  // Runs and lumis (InputLumis.h): each file's ids are read once, by the copy
  // that first needs them, from a file it opens to read anyway; NanoAOD's
  // Runs and LuminosityBlocks trees give run and lumi products and empty
  // lumis. Where the first file's trees have products, every file's are
  // read, with its ids, as the source is built.
  std::optional<LumiStretch> stretchAt(std::uint64_t ordinal) override;
  void readRun(std::uint32_t run, ProductSlot* slots) override;
  void readLumi(LumiNumber lumi, ProductSlot* slots) override;

  // How a branch becomes a product.
  enum class Kind { Scalar, Array, String, Object, Emulated };
  struct BranchLayout {
    std::string name;
    Kind kind;
    Fundamental const* fundamental = nullptr;  // Scalar, Array; Object: a std::vector of it
    TClass* cls = nullptr;                     // Object, Emulated
  };
  // What every copy of the source shares: files, entries and branch layout.
  struct TreeLayout;

 private:
  struct OpenFile;
  struct Held;
  struct Window;
  struct Reader;

  TreeSource(Options const& options, PluginOptions const& checked);
  TreeSource(std::shared_ptr<TreeLayout const> layout, std::uint64_t chunk);

  bool position(std::uint64_t entry, SourceEvent& event);
  // readProducts() in the order of `products`, or the reverse.
  template <bool kBackwards>
  void readProductsInOrder(SourceEvent const& event, ProductIndex const* products, std::size_t count,
                           ProductSlot* slots);
  // Counts files until global `entry` is counted (see FileSequence::reach);
  // false past the end.
  bool reach(std::uint64_t entry);
  // The open file holding global `entry`, and the entry within it.
  std::pair<OpenFile&, long long> fileOf(std::uint64_t entry);
  // The open file `index`, opened now if it is not open.
  OpenFile& opened(std::size_t index);
  std::unique_ptr<OpenFile> open(std::size_t file) const;
  // Reads `product` of global entry `entry`, entry `local` of `file`, into
  // `slot`: from its window, read ahead if the entry is not in it.
  void readProduct(OpenFile& file, std::uint64_t entry, long long local, std::size_t product, ProductSlot& slot);
  // Where the entry `local` of `product` is held in its window, read or not
  // yet, else nullptr (outside it, or the entry that failed); touches only
  // the product's reader.
  Held* windowed(OpenFile& file, std::size_t product, long long local) const;
  // The entry `local` of `product` if it was read ahead and waits in its
  // window, else nullptr.
  Held* waiting(OpenFile& file, std::size_t product, long long local) const;
  // An entry of a product read from baskets, as the basket stores it.
  struct Stored {
    char const* value = nullptr;  // nullptr: not in the basket in hand
    std::uint32_t bytes = 0;
  };
  // Entry `local` of `product`, read from baskets, in the basket in hand.
  static Stored stored(OpenFile& file, std::size_t product, long long local);
  // Converts `entry` of the product `reader` reads into `slot`.
  static void handStored(Reader const& reader, Stored entry, ProductSlot& slot);
  // Makes the basket that holds entry `local` of `product`, read from
  // baskets, the one in hand: read, if it is sound, else throws naming the
  // entry. One laid out otherwise (entriesFit) ends the product's reading
  // from baskets for this file (Reader::fromBaskets): ROOT reads it. One
  // that holds entries of two lanes' runs is decompressed once for all lanes
  // (SharedBaskets). `fileStart`: the file's first entry, in the source's.
  void loadBasket(OpenFile& file, std::size_t product, long long local, std::uint64_t fileStart);
  // Reads basket `number` of `product`, holding entry `local`, into its
  // reader from its branch, as loadBasket() says.
  void unzip(OpenFile& file, std::size_t product, long long local, long long number);
  // The runs of the kind lanes take (chunk_ entries from a multiple of
  // chunk_) that basket `number` of `branch` holds entries of.
  long long runsIn(TBranch& branch, long long number, std::uint64_t fileStart) const;
  // The basket in hand of `reader`, copied out of ROOT's TBasket.
  static std::shared_ptr<UnzippedBasket const> copyOut(Reader const& reader);
  // Whether every entry of the basket in hand of `product` is laid out as
  // its kind is (a whole number of values; a std::vector streamed whole).
  static bool entriesFit(OpenFile& file, std::size_t product);
  // Reads entry `local` of `product` straight into `slot`, past its window.
  void readStraight(OpenFile& file, std::size_t product, long long local, ProductSlot& slot);
  // Reads entries first.. of `product` into its window: the layout's
  // readAhead of them, up to entry `limit` of the file.
  void readAhead(OpenFile& file, std::size_t product, long long first, long long limit) const;
  // Reads one entry of `product` into `held` (into its object, if it has
  // one; else one of the product's pool). The caller notes what this thread
  // reads (ReadingScope) and turns ROOT's fatal errors into exceptions
  // (ThrowOnRootFatal), once for a run of entries.
  void readEntry(OpenFile& file, std::size_t product, long long entry, Held& held) const;
  // Why `product` of `entry` could not be read, as its error.
  [[gnu::cold]] Exception readFailure(std::size_t product, long long entry, std::string const& why) const;
  // ROOT's `fatal` error while reading `product` at `entry`, as its error;
  // the product is not read again from this file (OpenFile::fatal).
  [[gnu::cold]] Exception fatalFailure(OpenFile& file, std::size_t product, long long entry, Exception const& fatal) const;
  // Moves what `held` holds into `slot`.
  static void hand(Reader const& reader, Held& held, ProductSlot& slot);
  // Forgets what `held` holds, but a pooled object, to read into next.
  static void drop(Reader const& reader, Held& held);
  // What this copy reads, for a report of a crash inside ROOT: `branch` at
  // `entry` of the file of the last position or read.
  ReadingNote noteOf(char const* branch, long long entry) const;

  void makePools();
  // Whether this copy reads branches from their baskets, where it can: a
  // lane's own copy that reads ahead.
  bool fromBaskets() const;
  // The source's run and lumi products, declared from the layout's records.
  void declareRecords();
  // The lumis of file `index`, read from the file this copy opens for it if no copy has yet.
  FileLumis const& lumisOf(std::size_t index);

  std::shared_ptr<TreeLayout const> layout_;
  std::vector<ObjectPool::Owner> pools_;  // per product, but Scalar and Emulated; outlive the open files
  FileSequence sequence_{{}};  // this copy's: a shared source counts files as it reaches them
  RecentlyOpened<OpenFile> open_;
  bool perLane_ = false;
  bool backwards_ = false;  // reads an event's products last to first (replicate())
  std::uint64_t chunk_ = 1;  // handles=lane: the entries a lane's run ends at a multiple of
  std::uint64_t nextEntry_ = 0;
  std::size_t originFile_ = 0;  // the file of the last position or read, for errors
};

// Why the root source cannot read `branch` of a file of `fileBytes` as a
// product, in one line ("" if it can): its leaves, a class ROOT cannot
// emulate without a dictionary, or a basket the branch places outside the file.
std::string whyUnreadable(TBranch& branch, long long fileBytes);

}  // namespace lanes::rootio
