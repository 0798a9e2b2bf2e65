#include "root/EventBlobs.h"

#include <TBranch.h>
#include <TFile.h>
#include <TTree.h>

#include <memory>
#include <vector>

#include "lanes/core/Exception.h"
#include "root/BasketCheck.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

namespace {
constexpr std::pair<FrameLevel, char const*> kLevels[] = {
    {FrameLevel::Product, "product"}, {FrameLevel::Event, "event"}, {FrameLevel::Batch, "batch"}, {FrameLevel::Both, "both"}};
}

FrameLevel parseFrameLevel(std::string const& name) {
  for (auto const& [level, spelling] : kLevels) {
    if (name == spelling) return level;
  }
  throw Exception("unknown compress '" + name + "' (known: product, event, batch, both)");
}

std::string nameOf(FrameLevel level) {
  for (auto const& [known, spelling] : kLevels) {
    if (known == level) return spelling;
  }
  return "unknown";
}

char const* labelsBranch(Level level) { return level == Level::Run ? "runLabels" : "lumiLabels"; }
char const* typesBranch(Level level) { return level == Level::Run ? "runTypes" : "lumiTypes"; }

namespace {

char const* treeOf(Level level) { return level == Level::Run ? kRunTree : kLumiTree; }

void writeLevel(TFile& file, Level level, LevelRecords const& records) {
  auto const* name = treeOf(level);
  file.Delete((std::string(name) + ";*").c_str());
  auto* tree = new TTree(name, level == Level::Run ? "lanes root-events: the record of each run"
                                                   : "lanes root-events: the record of each lumi");
  tree->SetDirectory(&file);
  UInt_t run = 0, luminosityBlock = 0;
  ULong64_t events = 0;
  std::vector<char> blob;
  std::vector<UInt_t> sizes;
  tree->Branch("run", &run);
  if (level == Level::Lumi) tree->Branch("luminosityBlock", &luminosityBlock);
  tree->Branch("events", &events);
  tree->Branch("blob", &blob);
  tree->Branch("sizes", &sizes);
  bool filled = true;
  for (auto const& record : records.records) {
    run = record.number.run;
    luminosityBlock = record.number.luminosityBlock;
    events = record.events;
    blob = record.blob;
    sizes.assign(record.sizes.begin(), record.sizes.end());
    if (!(filled = tree->Fill() > 0)) break;
  }
  tree->ResetBranchAddresses();
  if (!filled) throw Exception(std::string("its tree ") + name + " cannot be filled: " + takeRootMessage());
}

// Reads the first `entries` entries of `tree` (each branch's baskets checked
// before ROOT reads them), calling `take()` after each.
template <typename Take>
void readEntries(TFile& file, TTree& tree, Long64_t entries, std::string const& path, Take take) {
  try {
    std::vector<BasketCheck> checks;
    auto const fileBytes = file.GetSize();
    for (auto* object : *tree.GetListOfBranches()) {
      auto& branch = *static_cast<TBranch*>(object);
      requireBasketsInFile(branch, fileBytes, path, tree.GetName());
      checks.emplace_back(branch, file);
    }
    for (Long64_t entry = 0; entry < entries; ++entry) {
      for (auto& check : checks) check.require(entry);
      takeRootMessage();
      if (tree.GetEntry(entry) <= 0) throw Exception("entry " + std::to_string(entry) + ": " + takeRootMessage());
      take();
    }
  } catch (Exception const& error) {
    tree.ResetBranchAddresses();
    throw Exception("cannot read '" + path + "' (tree " + tree.GetName() + "): " + error.message());
  }
  tree.ResetBranchAddresses();
}

// Points branch `name` of `tree` at `address`; throws if the branch is missing or of another type.
template <typename T>
void bindBranch(TTree& tree, char const* name, T* address, std::string const& path) {
  if (tree.SetBranchAddress(name, address) < 0) {
    tree.ResetBranchAddresses();
    throw Exception("cannot read '" + path + "': its tree " + tree.GetName() + " has no branch '" + name +
                    "' of the type lanes writes");
  }
}

// The product lists of the records, from the first entry of EventProducts; false if it has none.
bool readProductLists(TFile& file, std::string const& path, BlockRecords& records) {
  auto* products = file.Get<TTree>(kProductTree);
  if (!products || !products->GetBranch(labelsBranch(Level::Lumi))) return false;
  // Ours, which ROOT fills: the tree points at them until readEntries() resets it.
  std::vector<std::string> lists[4];
  std::vector<std::string>* addresses[4] = {&lists[0], &lists[1], &lists[2], &lists[3]};
  char const* const names[4] = {labelsBranch(Level::Lumi), typesBranch(Level::Lumi), labelsBranch(Level::Run),
                                typesBranch(Level::Run)};
  for (int i = 0; i < 4; ++i) bindBranch(*products, names[i], &addresses[i], path);
  readEntries(file, *products, 1, path, [] {});
  for (auto const level : {Level::Lumi, Level::Run}) {
    auto const& labels = lists[level == Level::Run ? 2 : 0];
    auto const& types = lists[level == Level::Run ? 3 : 1];
    if (labels.size() != types.size()) {
      throw Exception("cannot read '" + path + "': its " + levelName(level) + " product list is malformed");
    }
    for (std::size_t p = 0; p < labels.size(); ++p) records.of(level).products.emplace_back(labels[p], types[p]);
  }
  return true;
}

void readLevel(TFile& file, Level level, std::string const& path, LevelRecords& records) {
  auto* tree = file.Get<TTree>(treeOf(level));
  if (!tree) {
    throw Exception("cannot read '" + path + "': it lists run and lumi products but has no tree " + treeOf(level));
  }
  UInt_t run = 0, luminosityBlock = 0;
  ULong64_t events = 0;
  std::vector<char> blob;
  std::vector<UInt_t> sizes;
  auto* blobAddress = &blob;
  auto* sizesAddress = &sizes;
  bindBranch(*tree, "run", &run, path);
  if (level == Level::Lumi) bindBranch(*tree, "luminosityBlock", &luminosityBlock, path);
  bindBranch(*tree, "events", &events, path);
  bindBranch(*tree, "blob", &blobAddress, path);
  bindBranch(*tree, "sizes", &sizesAddress, path);
  readEntries(file, *tree, tree->GetEntries(), path, [&] {
    records.records.push_back({{run, luminosityBlock}, events, {sizes.begin(), sizes.end()}, blob});
  });
}

}  // namespace

void writeRecords(TFile& file, BlockRecords const& records) {
  writeLevel(file, Level::Lumi, records.lumis);
  writeLevel(file, Level::Run, records.runs);
}

BlockRecords readRecords(TFile& file, std::string const& path) {
  ThrowOnRootFatal guard;
  BlockRecords records;
  if (!readProductLists(file, path, records)) return records;
  records.kept = true;
  readLevel(file, Level::Lumi, path, records.lumis);
  readLevel(file, Level::Run, path, records.runs);
  return records;
}

}  // namespace lanes::rootio
