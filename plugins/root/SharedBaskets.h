#pragma once
// Baskets that two lanes read, decompressed once.
//
// Each lane's copy of the `root` source opens the files itself and reads a
// run of consecutive entries at a time. A basket that holds entries of two
// runs (a flat NanoAOD file merged from 50 has one basket of 9,500 of its
// 10,000 entries for half its branches) would be decompressed by each lane
// that reads there; at 2 lanes that was 30% more decompression than at 1.
// Such a basket is decompressed by the first lane that needs it, copied out
// of ROOT's TBasket, and read from the copy by every lane that comes to it:
// the copy is kept until the lanes of each run it spans found it (a lane
// that reads a basket at the end of its run comes long after the one that
// read it at the start of the next), or until the kept copies would
// outgrow kKeptBytes, the oldest going first.

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <tbb/concurrent_hash_map.h>

namespace lanes::rootio {

// A basket's entries as a lane reads them from baskets: entry `first + k`
// lies at `values() + offsets[k]` up to the next entry's offset (the last,
// up to `last`), or, with no offsets, at `values() + k * stride`.
struct UnzippedBasket {
  std::vector<char> bytes;
  std::vector<int> offsets;  // empty: entries of a fixed size
  long long first = 0, end = 0;
  std::int32_t last = 0;
  char const* values() const { return bytes.data(); }
  int const* entryOffsets() const { return offsets.empty() ? nullptr : offsets.data(); }
  std::size_t size() const { return bytes.size() + offsets.size() * sizeof(int); }
};

// Thread-safe: every lane's copy of a source finds, makes and lets go of
// baskets at once. The lane that makes a basket marks its key as being made
// and holds no lock while it decompresses; another lane wanting that basket
// waits for it rather than decompressing it too. (Making it under the key's
// lock, as this did before, held up lanes inserting other keys: 5% of the
// CPU time of two lanes reading 50 files of 200 events.)
class SharedBaskets {
 public:
  struct Key {
    std::size_t file;
    std::size_t product;
    long long basket;
    bool operator==(Key const& other) const {
      return file == other.file && product == other.product && basket == other.basket;
    }
  };
  using Held = std::shared_ptr<UnzippedBasket const>;
  static constexpr std::size_t kKeptBytes = std::size_t{64} << 20;

  explicit SharedBaskets(std::size_t keptBytes = kKeptBytes) : keptLimit_(keptBytes) {}

  // The basket `key`, which holds entries of `runs` lanes' runs, while kept
  // or held by a lane (once made, if another lane is making it), else what
  // `make` makes now (it may throw, or return nullptr for a basket that
  // cannot be read this way, and the next lane to want it tries again).
  Held find(Key const& key, long long runs, std::function<Held()> const& make);
  // Lets go of `held` (basket `key`), forgetting the basket when no lane holds it.
  void release(Key const& key, Held& held);

  // A lane's copy of the source that reads baskets came. Where several do,
  // every basket is shared while held, not only those of two runs: at the
  // end of the job lanes split the runs left (ClaimedRuns), and two lanes
  // read one basket at once.
  // Returns how many came before it.
  unsigned readerJoined() { return readers_.fetch_add(1, std::memory_order_relaxed); }
  bool severalReaders() const { return readers_.load(std::memory_order_relaxed) > 1; }

  // Baskets decompressed here, found here by another lane instead of
  // decompressed again, and of those, found being made and waited for.
  std::uint64_t made() const { return made_.load(std::memory_order_relaxed); }
  std::uint64_t reused() const { return reused_.load(std::memory_order_relaxed); }
  std::uint64_t waitedFor() const { return waitedFor_.load(std::memory_order_relaxed); }

 private:
  struct KeyHash {
    static std::size_t hash(Key const& key);
    static bool equal(Key const& a, Key const& b) { return a == b; }
  };
  struct Entry {
    std::weak_ptr<UnzippedBasket const> held;
    Held kept;         // until `awaited` more lanes found it
    long long awaited = 0;
    bool making = false;  // a lane makes it now: the entry stays
    // No lane holds the basket or makes it: the entry may go.
    bool forgettable() const { return held.expired() && !making; }
  };
  // The lane that made `key`'s basket, `made` (nullptr: none), puts it in the
  // entry it marked as making.
  void madeBy(Key const& key, Held const& made, long long runs);
  // Keeps `basket`, made for `key`, and lets go of the oldest kept baskets
  // beyond the limit. Called with no key's entry held: it takes theirs.
  void keep(Key const& key, Held const& basket);

  tbb::concurrent_hash_map<Key, Entry, KeyHash> baskets_;
  std::size_t const keptLimit_;
  std::mutex keptMutex_;  // guards kept_ and keptBytes_; taken with no entry held
  struct Kept {
    Key key;
    std::weak_ptr<UnzippedBasket const> basket;
    std::size_t bytes;
  };
  std::deque<Kept> kept_;  // oldest first; some may no longer be kept (all the lanes came), until they expire
  std::size_t keptBytes_ = 0;  // of kept_: at least those kept
  std::atomic<std::uint64_t> made_{0}, reused_{0}, waitedFor_{0};
  std::atomic<unsigned> readers_{0};
};

}  // namespace lanes::rootio
