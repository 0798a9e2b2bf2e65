#pragma once
// The branches of one TTree that an output fills event by event: the id
// branches, then a branch per column.

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "lanes/core/Event.h"
#include "root/OutputSupport.h"

class TTree;

namespace lanes::rootio {

// Tree options shared by the TTree outputs: basket=BYTES, split=LEVEL.
struct TreeSettings {
  int basketBytes = 32000;
  int splitLevel = 99;
};

// Adds the branch of `column` to `tree`: a fundamental's leaf reads the
// value at `scalar`, a class's branch the object `*object` points at (the
// branch notices when that pointer changes). Throws lanes::Exception naming
// a column ROOT cannot make a branch for.
void addColumnBranch(TTree& tree, Column const& column, void* scalar, void** object, TreeSettings const& settings);

// Confined to one thread at a time (the tree's output serialises its use).
// The tree reads products in place: class-typed branches point at the
// event's own objects during fill(), fundamental ones at staging copies.
class TreeFiller {
 public:
  // Adds the branches to `tree`; throws lanes::Exception naming a column ROOT
  // cannot make a branch for. `columns` must outlive the filler.
  TreeFiller(TTree& tree, std::vector<Column> const& columns, TreeSettings const& settings);
  TreeFiller(TreeFiller const&) = delete;
  TreeFiller& operator=(TreeFiller const&) = delete;
  ~TreeFiller();

  // Fills one entry and returns its bytes, uncompressed; throws
  // lanes::Exception if ROOT fails to write it.
  std::size_t fill(Event const& event);

 private:
  TTree& tree_;
  std::vector<Column> const& columns_;
  std::uint32_t run_ = 0, luminosityBlock_ = 0;
  std::uint64_t event_ = 0;
  std::vector<std::array<std::byte, 8>> scalars_;  // per column; stable addresses
  std::vector<void*> objects_;                    // per column: what each object branch points at
  std::vector<Fundamental const*> arrays_;        // per column: a std::vector of it, else nullptr
  std::vector<std::pair<TClass*, void*>> ownObjects_;
};

}  // namespace lanes::rootio
