#pragma once
// Runs and luminosity blocks (lumis) as modules see them. Events come in
// lumis, lumis in runs: a lumi is each stretch of consecutive events that
// share one (run, luminosityBlock). Modules get begin and end transitions for
// both (ModuleTypes.h), may put run and lumi products at their end, and keep
// per-lumi or per-run state without a lock in the caches below:
//
//   class LumiMuons : public lanes::global::Analyzer {
//    public:
//     explicit LumiMuons(std::string label)
//         : Analyzer(std::move(label)), pt_(consumes<std::vector<float>>("Muon_pt")),
//           counts_(producesLumi<std::uint64_t>("muons")) {}
//     void analyze(lanes::Event const& event) const override { muons_[event] += event.get(pt_).size(); }
//     void endLumi(lanes::Lumi& lumi) const override { lumi.put(counts_, muons_.total(lumi)); }
//    private:
//     lanes::ProductToken<std::vector<float>> pt_;
//     lanes::LumiToken<std::uint64_t> counts_;
//     lanes::LumiSum<std::uint64_t> muons_{*this};  // a cell per lane and lumi: no lock, no atomics
//   };

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "lanes/core/Conditions.h"
#include "lanes/core/Product.h"

namespace lanes {

class Event;
class Module;
class ProductRegistry;

// The level a product or a transition belongs to.
enum class Level { Event, Lumi, Run };

// A token for a lumi or run product (Module::producesLumi, consumesLumi, ...):
// distinct types, so that an event's token cannot index a lumi.
template <typename T>
class LumiToken : public ProductToken<T> {
 public:
  using ProductToken<T>::ProductToken;
};
template <typename T>
class RunToken : public ProductToken<T> {
 public:
  using ProductToken<T>::ProductToken;
};

// ---------------------------------------------------------------- merging

// How two values of one run or lumi product become one: where a lumi's events
// were processed by several processes (or the same lumi came back later in
// the input), each part put its own value, and the parts are merged. Numbers
// add up; std::vectors of numbers add up element by element (their sizes must
// agree). A type of your own merges if `mergeInto(T& into, T const& from)` is
// found for it (by argument-dependent lookup). Other types cannot be merged:
// a job that would have to is refused, naming the product.
template <typename T>
std::enable_if_t<std::is_arithmetic_v<T>> mergeInto(T& into, T const& from) {
  into += from;
}
// Throws lanes::Exception if the sizes differ.
void throwMergeSizes(std::size_t into, std::size_t from);
template <typename T>
std::enable_if_t<std::is_arithmetic_v<T>> mergeInto(std::vector<T>& into, std::vector<T> const& from) {
  if (into.size() != from.size()) throwMergeSizes(into.size(), from.size());
  for (std::size_t i = 0; i < into.size(); ++i) into[i] += from[i];
}

namespace detail {
template <typename T, typename = void>
struct Mergeable : std::false_type {};
template <typename T>
struct Mergeable<T, std::void_t<decltype(mergeInto(std::declval<T&>(), std::declval<T const&>()))>> : std::true_type {};
}  // namespace detail

template <typename T>
inline constexpr bool isMergeable = detail::Mergeable<T>::value;

// The MergeProducts of T (Product.h), or nullptr if T does not merge.
template <typename T>
MergeProducts mergerOf() {
  if constexpr (isMergeable<T>) {
    return [](ProductSlot& into, ProductSlot const& from) {
      mergeInto(*static_cast<T*>(const_cast<void*>(into.object())), *static_cast<T const*>(from.object()));
    };
  } else {
    return nullptr;
  }
}

// ---------------------------------------------------------------- runs and lumis

namespace detail {
class Boundaries;
struct BlockState;
struct BlockSlot;
}  // namespace detail

// What runs and lumis have in common: which one, where it sits, its products.
// Thread-safe for reading while it is in flight (its begin transition ran,
// its end not yet); products are put only in its end transition, where a put
// of a product already put merges into it (under a lock of the block's, so
// the stream modules of several lanes may put theirs at once).
class Block {
 public:
  Block(Block const&) = delete;
  Block& operator=(Block const&) = delete;

  std::uint32_t run() const { return run_; }
  // The job's count of this level's entries before this one (0, 1, 2, ...):
  // a lumi that comes back later in the input (3, 4, 3) is a new entry.
  std::uint64_t index() const { return index_; }
  // Which of the job's concurrent slots holds it (0 .. --concurrent-lumis - 1,
  // or --concurrent-runs - 1): what LumiCache and LumiSum index by.
  unsigned slot() const { return slot_; }
  // Events of this block that finished without error in this process: final
  // in the end transition.
  std::uint64_t events() const;
  // Product `index` of the level's registry (JobContext::lumiRegistry,
  // runRegistry), or nullptr where it was neither read nor put: what an
  // output that writes every product reads, in writeLumi()/writeRun().
  ProductSlot const* slot(ProductIndex index) const;
  bool has(ProductIndex index) const { return slot(index) != nullptr; }

 protected:
  Block(Level level, unsigned slot, detail::BlockState& state) : level_(level), slot_(slot), state_(state) {}
  ~Block() = default;

  template <typename T>
  T const& getAs(ProductIndex index) const {
    return *static_cast<T const*>(checked(index, typeid(T)).object());
  }
  template <typename T>
  void putAs(ProductIndex index, T value, std::size_t bytes) {
    auto slot = std::make_unique<ProductSlot>();
    slot->emplace(std::move(value), bytes);
    putSlot(index, std::move(slot));
  }
  detail::BlockState& state() const { return state_; }

 private:
  ProductSlot const& checked(ProductIndex index, std::type_info const& wanted) const;
  void putSlot(ProductIndex index, std::unique_ptr<ProductSlot> value);

  friend class detail::Boundaries;
  Level const level_;
  unsigned const slot_;
  detail::BlockState& state_;
  std::uint32_t run_ = 0;
  std::uint64_t index_ = 0;
};

// A run in flight.
class Run : public Block {
 public:
  template <typename T>
  T const& get(RunToken<T> token) const {
    return getAs<T>(token.index());
  }
  // In endRun() only.
  template <typename T>
  void put(RunToken<T> token, T value, std::size_t bytes = sizeof(T)) {
    putAs(token.index(), std::move(value), bytes);
  }

 private:
  friend class detail::Boundaries;
  friend struct detail::BlockSlot;
  Run(unsigned slot, detail::BlockState& state) : Block(Level::Run, slot, state) {}
};

// A luminosity block in flight.
class Lumi : public Block {
 public:
  std::uint32_t luminosityBlock() const { return luminosityBlock_; }
  Run const& runBlock() const { return *runBlock_; }

  template <typename T>
  T const& get(LumiToken<T> token) const {
    return getAs<T>(token.index());
  }
  // In endLumi() only.
  template <typename T>
  void put(LumiToken<T> token, T value, std::size_t bytes = sizeof(T)) {
    putAs(token.index(), std::move(value), bytes);
  }
  // The payload of a conditions record for this lumi's interval, once it is
  // loaded: in the calls of a module that declared the record, and in the
  // lumi's end transition.
  ConditionsPayload const& conditions(ConditionsToken token) const;

 private:
  friend class detail::Boundaries;
  friend struct detail::BlockSlot;
  Lumi(unsigned slot, detail::BlockState& state) : Block(Level::Lumi, slot, state) {}
  std::uint32_t luminosityBlock_ = 0;
  Run const* runBlock_ = nullptr;
};

// ---------------------------------------------------------------- per-lumi and per-run state

namespace detail {
// What the framework does with a module's caches: sizes them once the job's
// slots and lanes are known, and empties a slot's before its block begins.
class BlockCacheBase {
 public:
  virtual ~BlockCacheBase() = default;
  virtual Level level() const = 0;
  virtual void resize(unsigned slots, unsigned lanes) = 0;
  virtual void reset(unsigned slot) = 0;

 protected:
  explicit BlockCacheBase(Module& module);
};
unsigned slotOf(Event const& event, Level level);
unsigned laneOf(Event const& event);
}  // namespace detail

// A value of T for each lumi (or run) in flight, made anew (T{}) before the
// block begins: what a global module keeps per lumi without a lock. One
// value is shared by every lane processing the block's events: write it
// in beginLumi()/endLumi(), read it in events (or make its members atomic).
// Declare it as a member initialised with the module: `LumiCache<T> c_{*this};`.
template <typename T, Level L>
class BlockCache final : public detail::BlockCacheBase {
 public:
  explicit BlockCache(Module& module) : BlockCacheBase(module) {}
  T& operator[](Block const& block) const { return values_[block.slot()]; }
  T& operator[](Event const& event) const { return values_[detail::slotOf(event, L)]; }

  Level level() const override { return L; }
  void resize(unsigned slots, unsigned) override { values_ = std::make_unique<T[]>(slots); }
  void reset(unsigned slot) override { values_[slot] = T{}; }

 private:
  mutable std::unique_ptr<T[]> values_;
};

// A value of T for each lane and each lumi (or run) in flight, made anew
// (T{}) before the block begins: an event adds to its lane's own cell
// (`sum[event] += x`), lane-confined, so no lock and no atomics; total()
// merges the cells (mergeInto) in the block's end transition, when every
// event of the block is done. CMSSW's stream summaries, without the stream.
template <typename T, Level L>
class BlockSum final : public detail::BlockCacheBase {
  static_assert(isMergeable<T>, "a LumiSum/RunSum value must merge: numbers, vectors of numbers, or mergeInto(T&, T const&)");

 public:
  explicit BlockSum(Module& module) : BlockCacheBase(module) {}
  T& operator[](Event const& event) const {
    return cells_[detail::slotOf(event, L) * lanes_ + detail::laneOf(event)].value;
  }
  // In the block's end transition: every lane's cell merged.
  T total(Block const& block) const {
    T sum = cells_[block.slot() * lanes_].value;
    for (unsigned lane = 1; lane < lanes_; ++lane) mergeInto(sum, cells_[block.slot() * lanes_ + lane].value);
    return sum;
  }

  Level level() const override { return L; }
  void resize(unsigned slots, unsigned lanes) override {
    lanes_ = lanes;
    cells_ = std::make_unique<Cell[]>(static_cast<std::size_t>(slots) * lanes);
  }
  void reset(unsigned slot) override {
    for (unsigned lane = 0; lane < lanes_; ++lane) cells_[slot * lanes_ + lane].value = T{};
  }

 private:
  struct alignas(64) Cell {  // lanes add to their own cache lines
    T value{};
  };
  unsigned lanes_ = 0;
  mutable std::unique_ptr<Cell[]> cells_;
};

template <typename T>
using LumiCache = BlockCache<T, Level::Lumi>;
template <typename T>
using RunCache = BlockCache<T, Level::Run>;
template <typename T>
using LumiSum = BlockSum<T, Level::Lumi>;
template <typename T>
using RunSum = BlockSum<T, Level::Run>;

}  // namespace lanes
