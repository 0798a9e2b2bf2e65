#include "root/TreeLumis.h"

#include <TBranch.h>
#include <TBranchElement.h>
#include <TClass.h>
#include <TFile.h>
#include <TLeaf.h>
#include <TLeafC.h>
#include <TTree.h>
#include <TTreeCache.h>

#include <memory>
#include <set>
#include <optional>

#include "lanes/core/Exception.h"
#include "lanes/core/ReadingNote.h"

namespace lanes::rootio {

namespace {

std::string where(TFile& file, TTree& tree) { return "'" + std::string(file.GetName()) + "': TTree '" + tree.GetName() + "'"; }

// Reads entry `entry` of `branch`; throws naming the tree and entry if ROOT cannot.
void readEntry(TFile& file, TTree& tree, TBranch& branch, Long64_t entry) {
  std::optional<std::string> why;
  try {
    ReadingScope const reading({file.GetName(), "TTree", tree.GetName(), "branch", branch.GetName(), entry});
    ThrowOnRootFatal const guard;
    auto const errors = rootErrorsOnThisThread();
    if (branch.GetEntry(entry) < 0 || rootErrorsOnThisThread() != errors) why = takeRootMessage();
  } catch (Exception const& fatal) {
    why = fatal.message();
  }
  if (why) {
    throw Exception(where(file, tree) + ": cannot read branch '" + branch.GetName() + "' of entry " +
                    std::to_string(entry) + ": " + *why);
  }
}

// The branch a record column is read from, and how: through its leaf (a
// number or a leaf array), or into a std::vector of its own. Confined to one
// reader; the vector outlives the tree's use of its address.
struct RecordBranch {
  RecordBranch(TTree& tree, InputRecords::Column const& column_, std::string const& where);
  ~RecordBranch() {
    if (!vector) return;
    branch->ResetAddress();
    column.fundamental->deleteArray(vector, nullptr);
  }
  RecordBranch(RecordBranch const&) = delete;
  RecordBranch& operator=(RecordBranch const&) = delete;
  void put(ProductSlot& slot) const;

  InputRecords::Column const& column;
  TBranch* branch = nullptr;
  TLeaf* leaf = nullptr;
  void* vector = nullptr;
};

InputRecords::Column columnOf(TBranch& branch, std::string const& where) {
  std::string const name = branch.GetName();
  if (auto* element = dynamic_cast<TBranchElement*>(&branch)) {
    auto* cls = TClass::GetClass(element->GetClassName());
    auto const* type = cls && cls->GetTypeInfo() ? fundamentalByArray(*cls->GetTypeInfo()) : nullptr;
    if (type) return {name, type, true};
  } else if (branch.GetListOfLeaves()->GetEntriesFast() == 1) {
    auto* leaf = static_cast<TLeaf*>(branch.GetListOfLeaves()->At(0));
    auto const* type = dynamic_cast<TLeafC*>(leaf) ? nullptr : fundamentalByRootName(leaf->GetTypeName());  // a string
    if (type) {
      return {name, type, leaf->GetLeafCount() || leaf->GetLenStatic() > 1};
    }
  }
  throw Exception(where + ": branch '" + name +
                  "' is not a number, nor an array or std::vector of numbers: it cannot be a run or lumi product");
}

// The key leaves (run, luminosityBlock) of a record tree.
TLeaf* keyLeaf(TTree& tree, char const* name, std::string const& where) {
  auto* branch = tree.GetBranch(name);
  auto* leaf = branch ? static_cast<TLeaf*>(branch->GetListOfLeaves()->At(0)) : nullptr;
  auto const* type = leaf && !dynamic_cast<TLeafC*>(leaf) ? fundamentalByRootName(leaf->GetTypeName()) : nullptr;
  if (!type || type->scalar == typeid(float) || type->scalar == typeid(double) || leaf->GetLenStatic() != 1 ||
      leaf->GetLeafCount()) {
    throw Exception(where + " has no integer branch '" + name + "'");
  }
  return leaf;
}

// Each row's (run, luminosityBlock) of a LuminosityBlocks tree, or (run, 0) of a Runs tree.
template <typename Row>
void forEachRow(TFile& file, TTree& tree, Level level, Row row) {
  auto const at = where(file, tree);
  auto* run = keyLeaf(tree, "run", at);
  auto* lumi = level == Level::Lumi ? keyLeaf(tree, "luminosityBlock", at) : nullptr;
  for (Long64_t entry = 0; entry < tree.GetEntries(); ++entry) {
    readEntry(file, tree, *run->GetBranch(), entry);
    if (lumi) readEntry(file, tree, *lumi->GetBranch(), entry);
    row(entry, LumiNumber{static_cast<std::uint32_t>(run->GetValueLong64()),
                          lumi ? static_cast<std::uint32_t>(lumi->GetValueLong64()) : 0u});
  }
}

// While alive, `tree`'s read-ahead cache, if it has one, reads nothing and learns nothing.
class CacheAside {
 public:
  CacheAside(TFile& file, TTree& tree) : cache_(dynamic_cast<TTreeCache*>(file.GetCacheRead(&tree))) {
    if (cache_) cache_->Disable();
  }
  ~CacheAside() {
    if (cache_) cache_->Enable();
  }
  CacheAside(CacheAside const&) = delete;
  CacheAside& operator=(CacheAside const&) = delete;

 private:
  TTreeCache* cache_;
};

RecordBranch::RecordBranch(TTree& tree, InputRecords::Column const& column_, std::string const& where)
    : column(column_), branch(tree.GetBranch(column.label.c_str())) {
  if (!branch) throw Exception(where + " has no branch '" + column.label + "' (the first input file has)");
  auto const found = columnOf(*branch, where);
  if (found.fundamental != column.fundamental || found.array != column.array) {
    throw Exception(where + ": branch '" + column.label + "' is of another type than in the first input file");
  }
  if (dynamic_cast<TBranchElement*>(branch)) {
    vector = column.fundamental->newArray(nullptr, 0);
    branch->SetAddress(&vector);
  } else {
    leaf = static_cast<TLeaf*>(branch->GetListOfLeaves()->At(0));
  }
}

void RecordBranch::put(ProductSlot& slot) const {
  if (leaf) return putRecordValue(column, leaf->GetValuePointer(), static_cast<std::size_t>(leaf->GetLen()), slot);
  putRecordValue(column, nullptr, 0, slot);
  column.fundamental->swapArrays(const_cast<void*>(slot.object()), vector);
}

}  // namespace

std::vector<InputRecords::Column> treeRecordColumns(TFile& file, char const* name) {
  auto* tree = readObject<TTree>(file, name, "TTree");
  if (!tree) return {};
  // A leaf array's count (NanoAOD's nLHEScaleSumw) is no product: the
  // array's size says it, and counts would add up across files.
  std::set<std::string> counts;
  for (auto* leaf : *tree->GetListOfLeaves()) {
    if (auto* count = static_cast<TLeaf*>(leaf)->GetLeafCount()) counts.insert(count->GetBranch()->GetName());
  }
  std::vector<InputRecords::Column> columns;
  for (auto* object : *tree->GetListOfBranches()) {
    auto* branch = static_cast<TBranch*>(object);
    if (!isRecordKey(branch->GetName()) && !counts.count(branch->GetName())) {
      columns.push_back(columnOf(*branch, where(file, *tree)));
    }
  }
  return columns;
}

FileLumis treeLumis(TFile& file, TTree& events, TLeaf* runLeaf, TLeaf* lumiLeaf, LumiRows which) {
  std::optional<std::vector<LumiNumber>> rows;
  auto* lumis = which == LumiRows::Ignored ? nullptr : readObject<TTree>(file, kLumiRecords, "TTree");
  if (lumis) {
    rows.emplace();
    forEachRow(file, *lumis, Level::Lumi, [&](Long64_t, LumiNumber key) { rows->push_back(key); });
  } else if (which == LumiRows::Required) {
    rows.emplace();
  }
  auto const entries = static_cast<std::uint64_t>(events.GetEntries());
  if (!runLeaf) return fileLumis(entries, [](std::uint64_t) { return LumiNumber{1, 1}; }, rows, where(file, events));
  CacheAside const aside(file, events);
  return fileLumis(
      entries,
      [&](std::uint64_t entry) {
        auto const local = static_cast<Long64_t>(entry);
        readEntry(file, events, *runLeaf->GetBranch(), local);
        // The leaves of a leaf-list branch (id=) share it: read once.
        if (lumiLeaf->GetBranch() != runLeaf->GetBranch()) readEntry(file, events, *lumiLeaf->GetBranch(), local);
        return LumiNumber{static_cast<std::uint32_t>(runLeaf->GetValueLong64()),
                          static_cast<std::uint32_t>(lumiLeaf->GetValueLong64())};
      },
      rows, where(file, events));
}

void addTreeRecords(TFile& file, InputRecords& records) {
  for (auto level : {Level::Lumi, Level::Run}) {
    auto const& columns = records.columns(level);
    auto* tree = columns.empty() ? nullptr : readObject<TTree>(file, level == Level::Run ? kRunRecords : kLumiRecords, "TTree");
    if (!tree) continue;
    auto const at = where(file, *tree);
    std::vector<std::unique_ptr<RecordBranch>> branches;
    for (auto const& column : columns) branches.push_back(std::make_unique<RecordBranch>(*tree, column, at));
    std::vector<ProductSlot> values(columns.size());
    forEachRow(file, *tree, level, [&](Long64_t entry, LumiNumber key) {
      for (std::size_t c = 0; c < columns.size(); ++c) {
        readEntry(file, *tree, *branches[c]->branch, entry);
        branches[c]->put(values[c]);
      }
      records.add(level, key, values, at);
    });
  }
}

}  // namespace lanes::rootio
