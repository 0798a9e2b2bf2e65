#include "root/Inspect.h"

#include <ROOT/RNTuple.hxx>
#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RColumnElementBase.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <TBasket.h>
#include <TBranch.h>
#include <TBranchElement.h>
#include <TClass.h>
#include <TFile.h>
#include <TKey.h>
#include <TLeaf.h>
#include <TTree.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/core/ReadingNote.h"
#include "root/InputFiles.h"
#include "root/NTupleFields.h"
#include "root/RootSupport.h"
#include "root/TreeSource.h"
#include "root/UnreadableProducts.h"

namespace lanes::rootio {

namespace {

double perEvent(double bytes, std::uint64_t entries) { return entries ? bytes / static_cast<double>(entries) : 0.0; }

// "vector<float>" for an object branch; "Float_t", "Float_t[nJet]" or
// "Float_t[3]" for a leaf.
std::string typeOf(TBranch& branch) {
  if (*branch.GetClassName()) return branch.GetClassName();
  auto* leaves = branch.GetListOfLeaves();
  if (leaves->GetEntriesFast() != 1) return "leaf list";
  auto* leaf = static_cast<TLeaf*>(leaves->At(0));
  std::string type = leaf->GetTypeName();
  if (auto* count = leaf->GetLeafCount()) return type + "[" + count->GetName() + "]";
  if (leaf->GetLenStatic() > 1) return type + "[" + std::to_string(leaf->GetLenStatic()) + "]";
  return type;
}

struct Bytes {
  double compressed = 0, uncompressed = 0;
};

// A branch's bytes with its sub-branches'. ROOT's totals count the baskets
// written on their own; a file can also hold baskets saved inside the tree
// record (the last ones, when a writer saves the tree without flushing it),
// which are the baskets in memory before any event is read. Those count at
// their uncompressed size (the tree record is compressed as a whole).
Bytes bytesOf(TBranch& branch) {
  Bytes bytes{static_cast<double>(branch.GetZipBytes()), static_cast<double>(branch.GetTotBytes())};
  for (auto* object : *branch.GetListOfBaskets()) {
    if (auto* basket = static_cast<TBasket*>(object)) {
      // Its content ends at GetLast().
      auto const content = static_cast<double>(basket->GetLast() - basket->GetKeylen());
      bytes.compressed += content;
      bytes.uncompressed += content;
    }
  }
  for (auto* object : *branch.GetListOfBranches()) {
    auto const sub = bytesOf(*static_cast<TBranch*>(object));
    bytes.compressed += sub.compressed;
    bytes.uncompressed += sub.uncompressed;
  }
  return bytes;
}

InspectedDataset inspectTree(TTree& tree) {
  InspectedDataset dataset{tree.GetName(), "TTree", static_cast<std::uint64_t>(tree.GetEntries()), {}, {}};
  auto const fileBytes = tree.GetCurrentFile()->GetSize();
  for (auto* object : *tree.GetListOfBranches()) {
    auto* branch = static_cast<TBranch*>(object);
    auto const entries = static_cast<std::uint64_t>(branch->GetEntries());
    auto const bytes = bytesOf(*branch);
    ReadingScope const reading({tree.GetCurrentFile()->GetName(), "TTree", tree.GetName(), "branch", branch->GetName()});
    dataset.products.push_back({branch->GetName(), typeOf(*branch), entries, perEvent(bytes.compressed, entries),
                                perEvent(bytes.uncompressed, entries), whyUnreadable(*branch, fileBytes),
                                false});
  }
  return dataset;
}

// A field's bytes, its subfields' included: on storage (its pages) and in
// memory (its elements), as ROOT's RNTupleInspector counts them. Not that
// class: it lives in libROOTNTupleUtil, which brings ROOT's histogram and
// matrix libraries into every lanes process, and their start-up with them.
Bytes bytesOf(ROOT::RNTupleDescriptor const& descriptor, ROOT::DescriptorId_t field) {
  Bytes bytes;
  for (auto const& column : descriptor.GetColumnIterable(field)) {
    auto const elementSize = ROOT::Internal::RColumnElementBase::Generate<void>(column.GetType())->GetSize();
    for (auto const& cluster : descriptor.GetClusterIterable()) {
      // A column of another representation than the cluster's is suppressed there: it has no pages.
      auto const id = column.GetPhysicalId();
      if (!cluster.ContainsColumn(id) || cluster.GetColumnRange(id).IsSuppressed()) continue;
      for (auto const& page : cluster.GetPageRange(id).GetPageInfos()) {
        bytes.compressed += static_cast<double>(page.GetLocator().GetNBytesOnStorage());
        bytes.uncompressed += static_cast<double>(page.GetNElements() * elementSize);
      }
    }
  }
  for (auto const& subfield : descriptor.GetFieldIterable(field)) {
    auto const inner = bytesOf(descriptor, subfield.GetId());
    bytes.compressed += inner.compressed;
    bytes.uncompressed += inner.uncompressed;
  }
  return bytes;
}

InspectedDataset inspectNtuple(ROOT::RNTuple const& ntuple, std::string const& name, std::uint64_t fileBytes) {
  auto reader = ROOT::RNTupleReader::Open(ntuple);
  auto const& descriptor = reader->GetDescriptor();
  InspectedDataset dataset{name, "RNTuple", descriptor.GetNEntries(), {}, {}};
  std::vector<FieldLayout> typed;
  for (auto const& field : descriptor.GetFieldIterable(descriptor.GetFieldZeroId())) {
    if (!field.GetTypeName().empty()) typed.push_back(layoutOf(field.GetFieldName(), field.GetTypeName()));
  }
  auto const unreadable = unreadableFields(ntuple, *reader, typed, fileBytes);
  auto layout = typed.begin();
  for (auto const& field : descriptor.GetFieldIterable(descriptor.GetFieldZeroId())) {
    auto const bytes = bytesOf(descriptor, field.GetId());
    auto const entries = dataset.entries;
    auto const problem = unreadable.find(field.GetFieldName());
    bool const emulated = !field.GetTypeName().empty() && (layout++)->emulated;
    dataset.products.push_back({field.GetFieldName(), field.GetTypeName().empty() ? "(untyped record)" : field.GetTypeName(),
                                entries, perEvent(bytes.compressed, entries), perEvent(bytes.uncompressed, entries),
                                problem == unreadable.end() ? std::string() : problem->second,
                                emulated && problem == unreadable.end()});
  }
  return dataset;
}

}  // namespace

namespace {

// The dataset's exclude: its unreadable products' globs.
std::string excludeOf(InspectedDataset const& dataset) {
  std::vector<std::string> unreadable, readable;
  for (auto const& product : dataset.products) (product.unreadable.empty() ? readable : unreadable).push_back(product.name);
  std::string exclude;
  if (unreadable.empty()) return exclude;
  for (auto const& glob : excludeGlobs(unreadable, readable)) exclude += (exclude.empty() ? "" : ",") + ("exclude=" + glob);
  return exclude;
}

}  // namespace

std::vector<InspectedDataset> inspectFile(std::string const& path) {
  auto file = openInputFile(path);
  std::vector<InspectedDataset> datasets;
  for (auto* object : *file->GetListOfKeys()) {
    auto* key = static_cast<TKey*>(object);
    std::string const kind = key->GetClassName();
    if (kind == "ROOT::RNTuple") {
      if (auto* ntuple = readObject<ROOT::RNTuple>(*file, key->GetName(), "RNTuple")) {
        try {
          ReadingScope const reading({path.c_str(), "RNTuple", key->GetName()});
          datasets.push_back(inspectNtuple(*ntuple, key->GetName(), static_cast<std::uint64_t>(file->GetSize())));
        } catch (std::exception const& error) {
          throw Exception("'" + path + "': RNTuple '" + key->GetName() + "': " + rootExceptionMessage(error));
        }
      }
    } else if (auto* cls = TClass::GetClass(kind.c_str()); cls && cls->InheritsFrom(TTree::Class())) {
      if (auto* tree = readObject<TTree>(*file, key->GetName(), "TTree")) datasets.push_back(inspectTree(*tree));
    }
  }
  for (auto& dataset : datasets) dataset.exclude = excludeOf(dataset);
  return datasets;
}

std::string profileOf(InspectedDataset const& dataset, std::string const& origin) {
  // One product per line, as lanes.tools.derive_profile writes, so diffs stay readable.
  std::string text = nlohmann::json{{"origin", origin}, {"tree", dataset.name}, {"events", dataset.entries}}.dump();
  text.pop_back();
  text += ", \"products\": [\n";
  for (std::size_t i = 0; i < dataset.products.size(); ++i) {
    auto const& product = dataset.products[i];
    text += nlohmann::json{{"label", product.name}, {"type", product.type}, {"bytes_mean", product.uncompressedPerEvent}}
                .dump();
    text += i + 1 < dataset.products.size() ? ",\n" : "\n";
  }
  return text + "]}\n";
}

}  // namespace lanes::rootio
