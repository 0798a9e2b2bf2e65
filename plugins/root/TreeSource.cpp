#include "root/TreeSource.h"

#include <Bytes.h>
#include <TBasket.h>
#include <TBranch.h>
#include <TBranchElement.h>
#include <TBranchObject.h>
#include <TBufferFile.h>
#include <TClass.h>
#include <TDataType.h>
#include <TFile.h>
#include <TKey.h>
#include <TLeaf.h>
#include <TLeafC.h>
#include <TMath.h>
#include <TTree.h>
#include <TTreeCacheUnzip.h>
#include <TVirtualCollectionProxy.h>
#include <TROOT.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ReadingNote.h"
#include "lanes/core/StartupMarks.h"
#include "root/BasketCheck.h"
#include "root/Dictionaries.h"
#include "root/InputFiles.h"
#include "root/RootSupport.h"
#include "root/SharedBaskets.h"
#include "root/UnreadableProducts.h"
#include "root/TreeLumis.h"

namespace lanes::rootio {

// The id branches of NanoAOD's convention; they give each event its EventId
// instead of being products. With id=BRANCH they are the leaves of that one
// leaf-list branch instead (CMS's EventID, say).
constexpr char const* kIdBranches[] = {"run", "luminosityBlock", "event"};

struct TreeSource::TreeLayout {
  TreeLayout(std::vector<std::string> files, UnreadableProducts unreadable)
      : sequence(std::move(files)),
        counts(std::make_shared<EntryCounts>(sequence.files().size())),
        lumis(sequence.files().size()),
        unreadable(std::move(unreadable)) {}

  FileSequence sequence;
  std::string tree;
  std::vector<BranchLayout> branches;  // in product order
  bool hasIds = false;
  std::string idBranch;  // id=: the leaf-list branch of the ids; empty: the three branches
  long long cacheBytes = -1;  // -1: ROOT's automatic size
  std::string cacheChoice = "ROOT's automatic size";  // what chose cacheBytes, for the report
  std::size_t readAhead = 16;  // entries of a branch read at a time
  std::size_t fromBaskets = 0;  // the branches of the first file that can be read from baskets, where fromBaskets()
  std::uint64_t chunk = 1;     // handles=lane: consecutive entries a lane takes
  std::shared_ptr<EntryCounts> counts;  // with lumis.index, the parts copies change: thread-safe
  std::shared_ptr<SharedBaskets> baskets = std::make_shared<SharedBaskets>();  // thread-safe, too
  SourceLumis lumis;
  SkippedFiles skipped;
  UnreadableProducts unreadable;  // the selected branches of the first file that cannot be read here

  // A file open with its TTree read, or none.
  struct OpenedTree {
    std::unique_ptr<TFile> file;
    TTree* tree = nullptr;
  };
  // The first file as the source was built from it: the first copy that
  // reads file `index` takes it, if it is that file and still here, so that
  // a job reads its TTree's metadata once, not once more for its first lane
  // (NanoAOD's 947 branches: about as long as opening the file). Thread-safe.
  OpenedTree takeFirstFile(std::size_t index) const {
    std::lock_guard const lock(firstFileMutex_);
    return index == firstIndex_ ? std::exchange(firstFile_, {}) : OpenedTree{};
  }
  void keepFirstFile(std::size_t index, OpenedTree opened) {
    std::lock_guard const lock(firstFileMutex_);
    firstIndex_ = index;
    firstFile_ = std::move(opened);
  }
  // Before and after a fork: a descriptor opened before it would share its
  // offset with the other processes.
  void dropFirstFile() const {
    std::lock_guard const lock(firstFileMutex_);
    firstFile_ = {};
  }

 private:
  mutable std::mutex firstFileMutex_;
  mutable OpenedTree firstFile_;
  std::size_t firstIndex_ = 0;
};

// One entry of one product, read ahead of its event (or, read straight
// into its slot, with no read-ahead).
struct TreeSource::Held {
  // Object, Array, String: the product's pool's, out of it while held here
  // (once handed over, the slot's spare it was traded for, to read into
  // next); Emulated: its own, until handed over.
  void* object = nullptr;
  std::array<std::byte, 8> scalar{};  // Scalar
  std::uint32_t bytes = 0;
  bool ready = false;  // read and not yet handed over
};

// The entries [first, end) of one product read ahead (OpenFile::heldOf). The
// entry `failed`, the last, failed to read: the error is in
// OpenFile::errors, and belongs to that entry's event.
struct TreeSource::Window {
  long long first = 0;
  long long end = 0;
  long long failed = -1;
};

// What reading one product of an open file touches, in one place: a lane
// reads its event's products one after another, and each should cost it a
// cache line or two, not one in each of a dozen per-product arrays. What a
// read-ahead window's hand-over needs comes first (the first cache line).
struct alignas(64) TreeSource::Reader {
  Window window;  // read from baskets: the entries of the basket in hand
  // Read from baskets (see TreeSource.h), the basket in hand: the entry
  // `window.first + k` lies at `values + offsets[k]` up to the next entry's
  // offset (the last, up to `last`), or, where the basket keeps no offsets,
  // at `values + k * stride`; its values follow `header` bytes (a streamed
  // std::vector's byte count, version and size). nullptr: no basket in hand.
  char const* values = nullptr;
  int const* offsets = nullptr;
  Kind kind = Kind::Scalar;
  bool fatal = false;                         // see OpenFile::fatal
  bool fromBaskets = false;
  std::uint8_t header = 0;
  std::uint32_t stride = 0;                   // the bytes of an entry of a fixed size; 0: of a variable one
  std::int32_t last = 0;
  ObjectPool* pool = nullptr;                 // the source's; nullptr: Scalar, Emulated
  Fundamental const* fundamental = nullptr;   // as in BranchLayout
  TClass* cls = nullptr;                      // as in BranchLayout
  TBranch* branch = nullptr;
  TLeaf* leaf = nullptr;                      // of a fundamental or string branch
  void* object = nullptr;                     // the address an object branch reads into
  std::optional<BasketCheck> check;
  // The basket in hand, where it is shared with other lanes (SharedBaskets).
  SharedBaskets::Held shared;
  long long sharedNumber = -1;
};

// One opened file, with the branches of every product located in it.
struct TreeSource::OpenFile {
  std::shared_ptr<TreeLayout const> layout;
  std::size_t index = 0;  // in the layout's files
  std::unique_ptr<TFile> file;
  TTree* tree = nullptr;
  std::vector<Reader> readers;  // per product
  std::vector<std::pair<TClass*, void*>> initialObjects;
  std::vector<TLeaf*> idLeaves;
  // readahead=N > 1: N entries of every product, entry by entry (heldOf):
  // the products of one event lie side by side, as a lane hands them over.
  std::vector<Held> held;
  std::vector<std::string> errors;  // per product: why its window's failed entry failed
  // Per product: ROOT's fatal error that stopped a read of its branch ("entry N: what ROOT said"). The
  // branch is not read again: the fatal error left it, and the object it
  // was filling, half-way (a later read of it crashed in 1 of ~160 jobs).
  std::vector<std::string> fatal;

  // The entry `first + k` of the window of `product` that begins at `first`.
  Held& heldOf(std::size_t product, long long k) { return held[static_cast<std::size_t>(k) * readers.size() + product]; }

  void letGoOfShared(std::size_t product) {
    auto& reader = readers[product];
    layout->baskets->release({index, product, reader.sharedNumber}, reader.shared);
  }

  ~OpenFile() {
    for (std::size_t p = 0; p < readers.size(); ++p) letGoOfShared(p);
    for (std::size_t i = 0; i < held.size(); ++i) {
      auto const& reader = readers[i % readers.size()];
      drop(reader, held[i]);
      if (held[i].object) reader.pool->putBack(held[i].object);
    }
    // Detach the objects before the tree goes, then delete what no slot adopted.
    if (tree) tree->ResetBranchAddresses();
    for (auto [cls, object] : initialObjects) cls->Destructor(object);
  }
};

namespace {

std::string treeNames(TFile& file) {
  std::string names;
  for (auto* object : *file.GetListOfKeys()) {
    auto* key = static_cast<TKey*>(object);
    auto* cls = TClass::GetClass(key->GetClassName());
    if (cls && cls->InheritsFrom(TTree::Class())) names += (names.empty() ? "" : ", ") + std::string(key->GetName());
  }
  return names.empty() ? "none" : names;
}

TTree* findTree(TFile& file, std::string const& name) {
  auto* tree = readObject<TTree>(file, name, "TTree");
  if (!tree) {
    throw Exception("'" + std::string(file.GetName()) + "' has no TTree '" + name + "' (its trees: " + treeNames(file) +
                    ")");
  }
  return tree;
}

// How `branch` becomes a product; throws lanes::Exception saying why it
// cannot (whyUnreadable()).
TreeSource::BranchLayout layoutOf(TBranch& branch) {
  using Kind = TreeSource::Kind;
  std::string const name = branch.GetName();
  if (dynamic_cast<TBranchElement*>(&branch) || dynamic_cast<TBranchObject*>(&branch)) {
    auto* cls = TClass::GetClass(branch.GetClassName());
    if (!cls) throw Exception("its class '" + std::string(branch.GetClassName()) + "' is unknown here");
    bool const typed = cls->HasDictionary() && cls->GetTypeInfo();
    if (auto const why = typed ? std::string() : emulationProblem(cls); !why.empty()) {
      throw Exception("no dictionary for class '" + std::string(cls->GetName()) + "' here, and ROOT cannot emulate it (" +
                      why + "); dictionaries=DIR would build one");
    }
    // A std::vector of a fundamental type is swapped out of the object ROOT reads into.
    return {name, typed ? Kind::Object : Kind::Emulated, typed ? fundamentalByArray(*cls->GetTypeInfo()) : nullptr, cls};
  }
  auto* leaves = branch.GetListOfLeaves();
  if (leaves->GetEntriesFast() != 1) {
    throw Exception("it has " + std::to_string(leaves->GetEntriesFast()) +
                    " leaves; only single-leaf branches are products");
  }
  auto* leaf = static_cast<TLeaf*>(leaves->At(0));
  if (dynamic_cast<TLeafC*>(leaf)) return {name, Kind::String};
  auto const* fundamental = fundamentalByRootName(leaf->GetTypeName());
  if (!fundamental) throw Exception("its leaf type '" + std::string(leaf->GetTypeName()) + "' is none lanes reads");
  bool const array = leaf->GetLeafCount() || leaf->GetLenStatic() > 1;
  return {name, array ? Kind::Array : Kind::Scalar, fundamental};
}

}  // namespace

std::string whyUnreadable(TBranch& branch, long long fileBytes) {
  try {
    layoutOf(branch);
  } catch (Exception const& error) {
    return error.message();
  }
  return basketPlaceProblem(branch, fileBytes);
}

namespace {

// A std::vector streamed whole (streamsVectorWhole) starts with its byte
// count, marked by ROOT's kByteCountMask (TBufferFile.cxx), its version,
// never marked member-wise (TBufferFile::kStreamedMemberWise) for a vector of
// a fundamental type, and its size; all big-endian.
constexpr std::uint8_t kVectorHeader = 10;
constexpr std::uint32_t kByteCountMask = 0x40000000;

// Whether the `bytes` at `entry` are such a vector of `size`-byte values.
bool isStreamedVector(char const* entry, std::uint32_t bytes, std::size_t size) {
  if (bytes < kVectorHeader) return false;
  auto* cursor = const_cast<char*>(entry);  // frombuf() moves it past each field, reading only
  UInt_t count = 0;
  Version_t version = 0;
  Int_t values = 0;
  frombuf(cursor, &count);
  frombuf(cursor, &version);
  frombuf(cursor, &values);
  return count == (kByteCountMask | (bytes - 4)) && !(version & TBufferFile::kStreamedMemberWise) && values >= 0 &&
         kVectorHeader + static_cast<std::size_t>(values) * size == bytes;
}

// Asks for the cache lines of a std::vector object (40 bytes at most: a
// vector<bool>'s) ahead of writing to it.
inline void prefetchVector(void const* object) {
  auto const* bytes = static_cast<char const*>(object);
  __builtin_prefetch(bytes, 1);
  __builtin_prefetch(bytes + sizeof(std::vector<bool>) - 1, 1);
}

bool isIdBranch(std::string const& name, std::string const& idBranch) {
  return name == idBranch || std::find(std::begin(kIdBranches), std::end(kIdBranches), name) != std::end(kIdBranches);
}

// The selected top-level branches of `tree` (of `file`) as products, into
// `branches`, but those that cannot be read here, into `unreadable`; true if
// the tree has all the id branches.
bool describeBranches(TTree& tree, TFile& file, std::vector<std::string> const& include,
                      std::vector<std::string> const& exclude, std::string const& idBranch,
                      std::vector<TreeSource::BranchLayout>& branches, UnreadableProducts& unreadable) {
  std::size_t ids = 0;
  std::vector<std::string> readable;
  auto const fileBytes = file.GetSize();
  for (auto* object : *tree.GetListOfBranches()) {
    auto* branch = static_cast<TBranch*>(object);
    std::string const name = branch->GetName();
    if (isIdBranch(name, idBranch)) {
      ++ids;
      readable.push_back(name);
    } else if (selectedName(name, include, exclude)) {
      ReadingScope const reading({file.GetName(), "TTree", tree.GetName(), "branch", branch->GetName()});
      if (auto why = whyUnreadable(*branch, fileBytes); !why.empty()) {
        unreadable.add(name, std::move(why));
      } else {
        branches.push_back(layoutOf(*branch));
        readable.push_back(name);
      }
    }
  }
  unreadable.refuseOrSkip("TTree '" + std::string(tree.GetName()) + "'", readable);
  return !idBranch.empty() || ids == std::size(kIdBranches);
}

// The run, luminosityBlock and event leaves of `tree`: the leaves of the
// branch `idBranch`, or else the three branches' own.
std::vector<TLeaf*> idLeavesOf(TTree& tree, std::string const& idBranch) {
  if (idBranch.empty()) {
    std::vector<TLeaf*> leaves;
    for (auto const* name : kIdBranches) {
      auto* branch = tree.GetBranch(name);
      if (!branch) throw Exception("no branch '" + std::string(name) + "' (the first input file has)");
      leaves.push_back(static_cast<TLeaf*>(branch->GetListOfLeaves()->At(0)));
    }
    return leaves;
  }
  auto* branch = tree.GetBranch(idBranch.c_str());
  if (!branch) throw Exception("no branch '" + idBranch + "' for the event ids (id=)");
  std::vector<TLeaf*> leaves;
  for (auto const* name : kIdBranches) {
    auto* leaf = branch->GetLeaf(name);
    if (!leaf && name == std::string("luminosityBlock")) leaf = branch->GetLeaf("lumi");
    auto const* type = leaf ? fundamentalByRootName(leaf->GetTypeName()) : nullptr;
    if (!type || type->scalar == typeid(float) || type->scalar == typeid(double) || leaf->GetLenStatic() != 1) {
      throw Exception("id branch '" + idBranch + "' has no integer leaf '" + name +
                      "' (id= takes a leaf-list branch of integer leaves run, luminosityBlock or lumi, and event)");
    }
    leaves.push_back(leaf);
  }
  return leaves;
}

// Throws if a branches= or exclude= glob matches none of the tree's top-level branches.
void requireBranchMatches(TTree& tree, std::vector<std::string> const& include,
                          std::vector<std::string> const& exclude) {
  std::vector<std::string> names;
  for (auto* branch : *tree.GetListOfBranches()) names.emplace_back(branch->GetName());
  requireMatches("branches", include, names, "branch");
  requireMatches("exclude", exclude, names, "branch");
}

// The classes of the selected branches that ROOT emulates (no dictionary).
std::vector<std::string> emulatedClasses(TTree& tree, std::vector<std::string> const& include,
                                         std::vector<std::string> const& exclude) {
  std::vector<std::string> names;
  for (auto* object : *tree.GetListOfBranches()) {
    auto* branch = static_cast<TBranch*>(object);
    if (isIdBranch(branch->GetName(), {}) || !selectedName(branch->GetName(), include, exclude)) continue;
    auto* cls = *branch->GetClassName() ? TClass::GetClass(branch->GetClassName()) : nullptr;
    if (cls && !cls->HasDictionary()) names.emplace_back(cls->GetName());
  }
  return names;
}

// The entries of the tree's first cluster: its baskets hold those and no
// others. At least 1.
std::uint64_t firstClusterEntries(TTree& tree) {
  auto clusters = tree.GetClusterIterator(0);
  clusters.Next();
  return static_cast<std::uint64_t>(std::max<long long>(1, clusters.GetNextEntry()));
}

// readahead's default: 64 entries of a branch at a time, fewer where 64
// entries of the selected branches would hold more than 8 MiB uncompressed
// (a copy of the source holds a whole window of every branch). On NanoAOD
// (AMD EPYC, 1 thread) 64 read 1.15x (flat) and 1.3x (object branches) as
// fast as 16, the earlier default, and 128 or 256 no faster: the longer a
// branch is read, the longer ROOT's branch, basket and streamer stay in the
// CPU cache, and the fewer windows' set-up per entry.
std::size_t defaultReadAhead(TTree& tree, std::vector<TreeSource::BranchLayout> const& branches,
                             std::unordered_map<std::string_view, TBranch*> const& topLevel) {
  constexpr double kWindowBytes = 8 << 20;
  constexpr std::size_t kEntries = 64;
  double bytes = 0;
  for (auto const& branch : branches) bytes += static_cast<double>(topLevel.at(branch.name)->GetTotBytes("*"));
  auto const perEntry = bytes / static_cast<double>(std::max<Long64_t>(1, tree.GetEntries()));
  if (perEntry * kEntries <= kWindowBytes) return kEntries;
  return std::max<std::size_t>(1, static_cast<std::size_t>(kWindowBytes / perEntry));
}

// The top-level branches of `tree` by name. TTree::GetBranch searches every
// branch and sub-branch by name, one after another: finding each of
// NanoAOD's thousand products that way costs half a million string
// comparisons a file, paid again by every lane that opens it.
std::unordered_map<std::string_view, TBranch*> topLevelBranches(TTree& tree) {
  std::unordered_map<std::string_view, TBranch*> branches;
  for (auto* object : *tree.GetListOfBranches()) {
    auto* branch = static_cast<TBranch*>(object);
    branches.emplace(branch->GetName(), branch);
  }
  return branches;
}

// Whether a basket of `branch`, a scalar or an array of a fundamental type,
// holds its values one after another as they are in memory, but for the
// byte order: the leaf types ROOT's bulk reading takes.
bool storedAsInMemory(TreeSource::BranchLayout const& branch, TLeaf& leaf) {
  using Deserialize = TLeaf::DeserializeType;
  auto const type = leaf.GetDeserializeType();
  return (branch.kind == TreeSource::Kind::Scalar || branch.kind == TreeSource::Kind::Array) &&
         (type == Deserialize::kInPlace || type == Deserialize::kZeroCopy) &&
         static_cast<std::size_t>(leaf.GetLenType()) == branch.fundamental->size;
}

// Whether `branch`, whose product is a std::vector of a fundamental type,
// stores each entry as TClass streams the vector: a byte count, a version,
// the size, and the values one after another (kVectorHeader bytes); not a
// vector of another type read into this one (Double32_t into double).
bool streamsVectorWhole(TreeSource::BranchLayout const& layout, TBranch& branch) {
  auto* element = dynamic_cast<TBranchElement*>(&branch);
  auto* proxy = layout.cls->GetCollectionProxy();
  return element && element->GetType() == 0 && element->GetStreamerType() == -1 &&
         element->GetListOfBranches()->GetEntriesFast() == 0 && proxy &&
         proxy->GetType() == TDataType::GetType(layout.fundamental->scalar);
}

// Whether `branch` of `layout` can be read from its baskets (TreeSource.h).
bool readableFromBaskets(TreeSource::BranchLayout const& layout, TBranch& branch) {
  using Kind = TreeSource::Kind;
  switch (layout.kind) {
    case Kind::Scalar:
    case Kind::Array: return storedAsInMemory(layout, *static_cast<TLeaf*>(branch.GetListOfLeaves()->At(0)));
    case Kind::Object: return layout.fundamental && streamsVectorWhole(layout, branch);
    case Kind::String:
    case Kind::Emulated: break;
  }
  return false;
}

ProductDescription descriptionOf(TreeSource::BranchLayout const& branch) {
  using Kind = TreeSource::Kind;
  switch (branch.kind) {
    case Kind::Scalar: return {branch.name, branch.fundamental->scalar, {}};
    case Kind::Array: return {branch.name, branch.fundamental->array, {}};
    case Kind::String: return {branch.name, typeid(std::string), {}};
    case Kind::Object: return {branch.name, *branch.cls->GetTypeInfo(), branch.cls->GetName()};
    case Kind::Emulated: break;
  }
  return {branch.name, typeid(EmulatedObject), branch.cls->GetName()};
}

// The run and luminosityBlock leaves of `tree` (idLeavesOf), or none if the
// layout reads no ids; throws naming the file.
std::pair<TLeaf*, TLeaf*> lumiLeavesOf(TTree& tree, TreeSource::TreeLayout const& layout, std::string const& path) {
  if (!layout.hasIds) return {nullptr, nullptr};
  try {
    auto const leaves = idLeavesOf(tree, layout.idBranch);
    return {leaves[0], leaves[1]};
  } catch (Exception const& error) {
    throw Exception("'" + path + "': " + error.message());
  }
}

// Every file's lumis and run and lumi records, read as the source is built,
// from `first` on (open as `firstFile`): the products of a run or lumi sum
// its rows of every file, which no copy could know from the files it reached.
void readAllLumis(TreeSource::TreeLayout& layout, std::size_t first, TFile& firstFile, TTree& firstTree) {
  auto const& files = layout.sequence.files();
  for (auto index = first; index < files.size(); ++index) {
    if (layout.skipped.contains(files[index])) continue;
    std::unique_ptr<TFile> opened;
    auto* file = &firstFile;
    auto* tree = &firstTree;
    if (index != first) {
      opened = openInputFile(files[index]);
      file = opened.get();
      tree = findTree(*opened, layout.tree);
      layout.counts->learn(index, static_cast<std::uint64_t>(tree->GetEntries()));
    }
    auto const [run, lumi] = lumiLeavesOf(*tree, layout, files[index]);
    auto& records = layout.lumis.records;
    records.count(layout.lumis.index->of(index, [&] { return treeLumis(*file, *tree, run, lumi, layout.lumis.rows()); }));
    addTreeRecords(*file, records);
  }
}

}  // namespace

TreeSource::TreeSource(Options const& options) : TreeSource(options, PluginOptions(options, "root")) {}

TreeSource::TreeSource(Options const& options, PluginOptions const& checked) {
  initialiseRoot();
  auto layout = std::make_shared<TreeLayout>(inputFiles(checked), UnreadableProducts(checked, "branch"));
  layout->tree = options.getString("tree", "Events");
  if (auto const id = options.getString("id")) {
    if (id->empty()) throw Exception("root: id= names no branch");
    layout->idBranch = *id;
  }
  auto const include = options.getAll("branches");
  auto const exclude = options.getAll("exclude");
  bool const perLane = checked.choice("handles", "lane", {"shared", "lane"}) == "lane";
  if (options.has("cache")) {
    layout->cacheBytes = static_cast<long long>(checked.count("cache", 0));
    layout->cacheChoice = std::to_string(layout->cacheBytes) + " bytes (cache=)";
  }
  bool const imt = options.getBool("imt", false);
  if (imt) {
    ROOT::EnableImplicitMT();
    TTreeCacheUnzip::SetParallelUnzip(TTreeCacheUnzip::kEnable);
  }

  // The first file gives the layout. Every copy counts each later file when
  // it first reaches it (lanes claim entries in increasing order), so now
  // the others are only checked to be readable: opening a NanoAOD file costs
  // ~30 ms, most of a thousand-file job's start-up. A bad one fails when
  // it is reached, unless bad files are skipped: then all are opened now.
  auto const& files = layout->sequence.files();
  bool const skipBad = options.getBool("skip-bad-files", false);
  if (!skipBad) {
    for (auto const& path : files) {
      if (&path != &files.front()) requireReadable(path);
    }
  }
  std::unique_ptr<TFile> file;
  TTree* tree = nullptr;
  auto const first = openFirstReadable(files, skipBad ? &layout->skipped : nullptr, [&](std::size_t index) {
    file = openInputFile(files[index]);
    tree = findTree(*file, layout->tree);
  });
  markStartup("open");
  // ROOT's TTreeCache reads a cluster's baskets ahead in large sorted reads:
  // what storage with latency needs. On local storage it only copies each
  // basket once more, once for every lane's handle: without it the bench's
  // inputs read 0-5% faster at 1 thread and 2-9% faster at 2
  // (docs/benchmarks.md). imt=true decompresses in the cache: it keeps one.
  if (layout->cacheBytes < 0 && !imt && onLocalStorage(files[first])) {
    layout->cacheBytes = 0;
    layout->cacheChoice = "none: the first file is on local storage";
  }
  ReadingScope const reading({files[first].c_str(), "TTree", layout->tree.c_str()});
  auto const emulated = emulatedClasses(*tree, include, exclude);
  if (auto const dictionaries = options.getString("dictionaries"); dictionaries && !emulated.empty()) {
    loadDictionaries(*file, emulated, *dictionaries);
    // Reopened, so that the branches see the real classes.
    file = openInputFile(files[first]);
    tree = findTree(*file, layout->tree);
  }
  layout->chunk = checked.positive("chunk", firstClusterEntries(*tree));
  try {
    requireBranchMatches(*tree, include, exclude);
    if (!layout->idBranch.empty()) idLeavesOf(*tree, layout->idBranch);  // refuses a bad id= before the job
    layout->hasIds =
        describeBranches(*tree, *file, include, exclude, layout->idBranch, layout->branches, layout->unreadable);
  } catch (Exception const& error) {
    throw Exception("'" + files[first] + "': " + error.message());
  }
  auto const topLevel = topLevelBranches(*tree);
  for (std::size_t skipped = 0; skipped < first; ++skipped) {
    layout->counts->learn(skipped, 0);
    layout->sequence.addEntries(0);
  }
  layout->counts->learn(first, static_cast<std::uint64_t>(tree->GetEntries()));
  layout->sequence.addEntries(static_cast<std::uint64_t>(tree->GetEntries()));
  perLane_ = perLane;
  layout->readAhead = static_cast<std::size_t>(
      checked.positive("readahead", defaultReadAhead(*tree, layout->branches, topLevel)));
  layout_ = layout;
  for (auto const& branch : layout->branches) {
    declare(descriptionOf(branch));
    if (fromBaskets() && readableFromBaskets(branch, *topLevel.at(branch.name))) ++layout->fromBaskets;
  }
  sequence_ = layout->sequence;
  chunk_ = layout->chunk;
  makePools();
  if (skipBad) {  // open() reads the layout_ just set
    countOrSkip(files, first + 1, *layout->counts, layout->skipped,
                [this](std::size_t index) { return static_cast<std::uint64_t>(open(index)->tree->GetEntries()); });
  }
  layout->lumis.setUp(files, layout->skipped, layout->tree, [&](char const* name) { return treeRecordColumns(*file, name); });
  declareRecords();
  if (!layout->lumis.records.empty()) readAllLumis(*layout, first, *file, *tree);
  layout->keepFirstFile(first, {std::move(file), tree});
  markStartup("layout");
}

TreeSource::TreeSource(std::shared_ptr<TreeLayout const> layout, std::uint64_t chunk)
    : layout_(std::move(layout)), sequence_(layout_->sequence), perLane_(true), chunk_(chunk) {
  for (auto const& branch : layout_->branches) declare(descriptionOf(branch));
  declareRecords();
  makePools();
}

void TreeSource::declareRecords() {
  for (auto& description : layout_->lumis.records.descriptions(Level::Lumi)) declareLumiProduct(std::move(description));
  for (auto& description : layout_->lumis.records.descriptions(Level::Run)) declareRunProduct(std::move(description));
}

void TreeSource::makePools() {
  for (auto const& branch : layout_->branches) {
    switch (branch.kind) {
      case Kind::Object: pools_.push_back(ObjectPool::make(branch.cls)); break;
      case Kind::Array:
        pools_.push_back(ObjectPool::make(
            branch.fundamental->array,
            [](void* type) { return static_cast<Fundamental const*>(type)->newArray(nullptr, 0); },
            [](void* array, void* type) { static_cast<Fundamental const*>(type)->deleteArray(array, nullptr); },
            const_cast<Fundamental*>(branch.fundamental)));
        break;
      case Kind::String:
        pools_.push_back(ObjectPool::make(
            typeid(std::string), [](void*) -> void* { return new std::string; },
            [](void* string, void*) { delete static_cast<std::string*>(string); }, nullptr));
        break;
      case Kind::Scalar:
      case Kind::Emulated: pools_.push_back(nullptr); break;
    }
  }
}

TreeSource::~TreeSource() = default;

bool TreeSource::fromBaskets() const { return perLane_ && layout_->readAhead > 1; }

std::unique_ptr<Source> TreeSource::lookAhead() const { return std::unique_ptr<Source>(new TreeSource(layout_, chunk_)); }

std::unique_ptr<Source> TreeSource::replicate() const {
  if (!perLane_) return nullptr;
  auto copy = std::unique_ptr<TreeSource>(new TreeSource(layout_, chunk_));
  // Every second lane reads an event's products last to first: lanes that
  // start at once and want the same baskets (SharedBaskets) then make half
  // of them each, meeting in the middle, instead of one waiting for the other.
  copy->backwards_ = layout_->baskets->readerJoined() % 2 == 1;
  return copy;
}

void TreeSource::useReplicaChunk(std::uint64_t chunk) { chunk_ = chunk; }

std::uint64_t TreeSource::replicaChunk() const { return layout_->chunk; }

std::optional<std::uint64_t> TreeSource::eventCount() const {
  return sequence_.counted() ? std::optional<std::uint64_t>(sequence_.entries()) : std::nullopt;
}

bool TreeSource::next(SourceEvent& event) { return position(nextEntry_++, event); }

bool TreeSource::skip(std::uint64_t count) {
  if (count > 0) reach(nextEntry_ + count - 1);
  return sequence_.skip(nextEntry_, count);
}

bool TreeSource::reach(std::uint64_t entry) {
  return sequence_.reach(entry, *layout_->counts, [this](std::size_t index) {
    originFile_ = index;
    // Opened for good: this copy reads it next.
    return static_cast<std::uint64_t>(opened(index).tree->GetEntries());
  });
}

bool TreeSource::at(std::uint64_t ordinal, SourceEvent& event) { return position(ordinal, event); }

// ROOT reads a file by seek and read: processes forked after it was opened
// would move each other's offset between the two and read wrong bytes.
void TreeSource::beforeFork() { layout_->dropFirstFile(); }

void TreeSource::afterFork() {
  layout_->dropFirstFile();
  open_.clear();
}

std::string TreeSource::origin() const { return sequence_.files()[originFile_]; }

// The read-ahead it chose (defaultReadAhead) or was given, its TTreeCache,
// the branches a lane's copy reads from their baskets, the files it skipped,
// and its run and lumi records.
std::string TreeSource::details() const {
  auto details = nlohmann::json{{"readahead", layout_->readAhead},
                                {"tree_cache", layout_->cacheChoice},
                                {"branches_from_baskets", layout_->fromBaskets}};
  if (auto const made = layout_->baskets->made()) {
    details["baskets_shared"] = {{"decompressed", made},
                                 {"reused", layout_->baskets->reused()},
                                 {"waited_for", layout_->baskets->waitedFor()}};
  }
  details.update(layout_->unreadable.details());
  for (auto const& more : {layout_->skipped.details(), layout_->lumis.records.details()}) {
    if (!more.empty()) details.update(nlohmann::json::parse(more));
  }
  return details.dump();
}

std::optional<LumiStretch> TreeSource::stretchAt(std::uint64_t ordinal) {
  return stretchOf(
      sequence_, ordinal, [this](std::size_t file) -> FileLumis const& { return lumisOf(file); },
      [this](std::uint64_t entry) { return reach(entry); });
}

FileLumis const& TreeSource::lumisOf(std::size_t index) {
  return layout_->lumis.index->of(index, [&] {
    auto& file = opened(index);
    bool const ids = layout_->hasIds;
    return treeLumis(*file.file, *file.tree, ids ? file.idLeaves[0] : nullptr, ids ? file.idLeaves[1] : nullptr,
                     layout_->lumis.rows());
  });
}

void TreeSource::readRun(std::uint32_t run, ProductSlot* slots) {
  layout_->lumis.records.read(Level::Run, {run, 0}, slots);
}

void TreeSource::readLumi(LumiNumber lumi, ProductSlot* slots) { layout_->lumis.records.read(Level::Lumi, lumi, slots); }

std::vector<std::string> TreeSource::fileList() const { return layout_->sequence.files(); }

// Counted into the counts every copy shares, so that no copy opens the file to move past it; kept open
// (a shared source reads it next, as when reach() counts it).
std::uint64_t TreeSource::fileEntries(std::size_t file) {
  if (auto const known = layout_->counts->known(file)) return *known;
  auto const entries = static_cast<std::uint64_t>(opened(file).tree->GetEntries());
  layout_->counts->learn(file, entries);
  return entries;
}

void TreeSource::learnFileEntries(std::size_t file, std::uint64_t entries) { layout_->counts->learn(file, entries); }

bool TreeSource::position(std::uint64_t entry, SourceEvent& event) {
  if (!reach(entry)) return false;
  event.entry = entry;
  if (!layout_->hasIds) {
    event.id = {1, 1, entry + 1};
    return true;
  }
  auto [file, local] = fileOf(entry);
  std::uint64_t values[3];
  for (std::size_t i = 0; i < 3; ++i) {
    auto* leaf = file.idLeaves[i];
    // The leaves of a leaf-list branch share it: read once.
    bool const read = i == 0 || leaf->GetBranch() != file.idLeaves[i - 1]->GetBranch();
    std::optional<std::string> why;
    try {
      ReadingScope const reading(noteOf(leaf->GetBranch()->GetName(), local));
      ThrowOnRootFatal const guard;
      auto const errors = rootErrorsOnThisThread();
      if (read && (leaf->GetBranch()->GetEntry(local) < 0 || rootErrorsOnThisThread() != errors)) why = takeRootMessage();
    } catch (Exception const& fatal) {
      why = fatal.message();
    }
    if (why) {
      throw Exception("cannot read branch '" + std::string(leaf->GetBranch()->GetName()) + "' of entry " +
                      std::to_string(local) + " of TTree '" + layout_->tree + "' in '" + origin() + "': " + *why);
    }
    values[i] = static_cast<std::uint64_t>(leaf->GetValueLong64());
  }
  event.id = {static_cast<std::uint32_t>(values[0]), static_cast<std::uint32_t>(values[1]), values[2]};
  return true;
}

void TreeSource::read(SourceEvent const& event, std::size_t product, ProductSlot& slot) {
  auto [file, local] = fileOf(event.entry);
  readProduct(file, event.entry, local, product, slot);
}

inline void TreeSource::hand(Reader const& reader, Held& held, ProductSlot& slot) {
  held.ready = false;
  if (auto* pool = reader.pool) {
    // Traded for the object the slot held for its lane's last event, read into next.
    held.object = pool->trade(held.object, held.bytes, slot);
  } else if (reader.kind == Kind::Scalar) {
    reader.fundamental->putScalar(held.scalar.data(), slot, held.bytes);
  } else {
    slot.emplace(EmulatedObject(reader.cls, std::exchange(held.object, nullptr)), held.bytes);
  }
}

inline TreeSource::Held* TreeSource::windowed(OpenFile& file, std::size_t product, long long local) const {
  auto const& reader = file.readers[product];
  if (layout_->readAhead == 1 || reader.fromBaskets) return nullptr;
  auto const& window = reader.window;
  if (local < window.first || local >= window.end || local == window.failed) return nullptr;
  return &file.heldOf(product, local - window.first);
}

inline TreeSource::Held* TreeSource::waiting(OpenFile& file, std::size_t product, long long local) const {
  auto* held = windowed(file, product, local);
  return held && held->ready ? held : nullptr;
}

inline TreeSource::Stored TreeSource::stored(OpenFile& file, std::size_t product, long long local) {
  auto const& reader = file.readers[product];
  auto const& window = reader.window;
  if (!reader.values || local < window.first || local >= window.end) return {};
  auto const k = static_cast<std::size_t>(local - window.first);
  if (!reader.offsets) return {reader.values + k * reader.stride, reader.stride};
  auto const begin = reader.offsets[k];
  auto const end = local + 1 < window.end ? reader.offsets[k + 1] : reader.last;
  return {reader.values + begin, static_cast<std::uint32_t>(end - begin)};
}

inline void TreeSource::handStored(Reader const& reader, Stored entry, ProductSlot& slot) {
  auto const& fundamental = *reader.fundamental;
  if (reader.kind == Kind::Scalar) return fundamental.putStored(entry.value, slot, entry.bytes);
  // Into the object the slot held for its lane's last event, as readStraight does.
  auto* array = reader.pool->reclaim(slot);
  if (!array) array = reader.pool->take();
  auto const values = (entry.bytes - reader.header) >> __builtin_ctzl(fundamental.size);  // sizes are powers of 2
  fundamental.assignStored(array, entry.value + reader.header, values);
  reader.pool->lend(array, entry.bytes, slot);
}

void TreeSource::readProducts(SourceEvent const& event, ProductIndex const* products, std::size_t count,
                              ProductSlot* slots) {
  if (backwards_) return readProductsInOrder<true>(event, products, count, slots);
  readProductsInOrder<false>(event, products, count, slots);
}

template <bool kBackwards>
void TreeSource::readProductsInOrder(SourceEvent const& event, ProductIndex const* products, std::size_t count,
                                     ProductSlot* slots) {
  // A scalar from a basket is handed over in ~10 ns: far enough ahead that
  // three misses one after another (reader, entry offset, value) come in time.
  constexpr std::size_t kFar = 24, kMiddle = 16, kNear = 8;
  auto const nth = [products, count](std::size_t n) { return kBackwards ? products[count - 1 - n] : products[n]; };
  auto [file, local] = fileOf(event.entry);
  for (std::size_t i = 0; i < count; ++i) {
    auto const product = nth(i);
    // A product's slot, reader and held entry were last touched an event of
    // every product ago: ask for them ahead, far enough that they come in
    // time (a hand-over takes a few nanoseconds, a miss ~100), the reader
    // first, as the held entry is found through it (and a stored entry
    // through the basket's entry offsets).
    if (i + kFar < count) {
      __builtin_prefetch(&slots[nth(i + kFar)], 1);
      __builtin_prefetch(&file.readers[nth(i + kFar)]);
    }
    if (i + kMiddle < count) {
      auto const& reader = file.readers[nth(i + kMiddle)];
      auto const& window = reader.window;
      if (reader.offsets && local >= window.first && local < window.end) {
        __builtin_prefetch(&reader.offsets[local - window.first]);
      }
    }
    if (i + kNear < count) {
      if (auto* held = windowed(file, nth(i + kNear), local)) {
        __builtin_prefetch(held);
      } else if (auto const entry = stored(file, nth(i + kNear), local); entry.value) {
        // Each product's values lie in a basket of their own: one stream of
        // the CPU's reads for every product, too many for it to foresee.
        __builtin_prefetch(entry.value);
      }
    }
    // The usual case, kept short: the entry was read ahead and waits.
    if (auto* held = waiting(file, product, local)) {
      hand(file.readers[product], *held, slots[product]);
    } else if (auto const entry = stored(file, product, local); entry.value) {
      handStored(file.readers[product], entry, slots[product]);
    } else {
      readProduct(file, event.entry, local, product, slots[product]);
    }
  }
}

void TreeSource::readProduct(OpenFile& file, std::uint64_t entry, long long local, std::size_t product,
                             ProductSlot& slot) {
  auto& reader = file.readers[product];
  if (layout_->readAhead == 1) return readStraight(file, product, local, slot);
  if (reader.fromBaskets) {
    if (!stored(file, product, local).value) loadBasket(file, product, local, entry - static_cast<std::uint64_t>(local));
    if (auto const entry = stored(file, product, local); entry.value) return handStored(reader, entry, slot);
    // loadBasket found the basket laid out otherwise: read on entry by entry.
  }
  auto& window = reader.window;
  auto const failed = [&] {
    if (local != window.failed) return;
    window.failed = -1;
    throw Exception(std::exchange(file.errors[product], {}));
  };
  failed();  // read ahead for an earlier event
  // An entry before the window: in a shared source, a lane's event that the
  // other lanes overtook. Read alone, so that the window, which they read
  // from next, is not read again from that entry (at 2 lanes 8% of the
  // windows). A lane's own copy goes back only to a run it took from another
  // lane (ClaimedRuns::steal), and reads on from there.
  if (!perLane_ && local < window.first && window.end > window.first) return readStraight(file, product, local, slot);
  if (!waiting(file, product, local)) {
    auto limit = file.tree->GetEntries();
    // A lane's run of entries ends at a multiple of the chunk: the entries
    // after it are another lane's to read.
    if (perLane_) limit = std::min(limit, local + static_cast<long long>(chunk_ - entry % chunk_));
    readAhead(file, product, local, limit);
    failed();
  }
  hand(reader, file.heldOf(product, local - window.first), slot);
}

void TreeSource::readStraight(OpenFile& file, std::size_t product, long long local, ProductSlot& slot) {
  // Into the object the slot held for its lane's last event: a lane's own
  // copy with readahead=1 reads each object branch into one object.
  auto const& reader = file.readers[product];
  Held held{reader.pool ? reader.pool->reclaim(slot) : nullptr};
  {
    ReadingScope const reading(noteOf(layout_->branches[product].name.c_str(), local));
    ThrowOnRootFatal const guard;
    readEntry(file, product, local, held);
  }
  hand(reader, held, slot);
}

void TreeSource::readAhead(OpenFile& file, std::size_t product, long long first, long long limit) const {
  auto& reader = file.readers[product];
  auto& window = reader.window;
  // What the window holds unhanded is forgotten; only an emulated object
  // needs more (the next window's entries are marked ready as they are read).
  if (reader.kind == Kind::Emulated) {
    for (auto entry = window.first; entry < window.end; ++entry) drop(reader, file.heldOf(product, entry - window.first));
  }
  auto const end = std::min(first + static_cast<long long>(layout_->readAhead), limit);
  window = {first, first, -1};
  ReadingScope reading(noteOf(layout_->branches[product].name.c_str(), first));
  ThrowOnRootFatal const guard;
  // The tree's read-ahead cache follows its current entry.
  if (file.tree->GetReadEntry() != first) {
    try {
      file.tree->LoadTree(first);
    } catch (Exception const& fatal) {
      window.failed = first;
      file.errors[product] = "cannot read entry " + std::to_string(first) + " of TTree '" + layout_->tree + "' in '" +
                             origin() + "': " + fatal.message();
      return;
    }
  }
  for (auto entry = first; entry < end; ++entry) {
    window.end = entry + 1;
    reading.entry(entry);
    // The next entries' held objects lie a whole event apart: ask for them ahead.
    if (entry + 2 < end) __builtin_prefetch(&file.heldOf(product, entry + 2 - first), 1);
    if (entry + 1 < end && reader.fundamental) {
      if (auto* next = file.heldOf(product, entry + 1 - first).object) prefetchVector(next);
    }
    try {
      readEntry(file, product, entry, file.heldOf(product, entry - first));
    } catch (Exception const& error) {
      // The failure belongs to the event of that entry, which may come later.
      window.failed = entry;
      file.errors[product] = error.message();
      return;
    }
  }
}

void TreeSource::loadBasket(OpenFile& file, std::size_t product, long long local, std::uint64_t fileStart) {
  auto& reader = file.readers[product];
  reader.values = nullptr;
  file.letGoOfShared(product);
  if (reader.fatal) throw readFailure(product, local, "not read after ROOT's fatal error in " + file.fatal[product]);
  auto& branch = *reader.branch;
  auto const number = TMath::BinarySearch(static_cast<Long64_t>(branch.GetWriteBasket()) + 1, branch.GetBasketEntry(),
                                          static_cast<Long64_t>(local));
  auto const runs = number >= 0 && number < branch.GetWriteBasket() ? runsIn(branch, number, fileStart) : 1;
  if (runs < 2 && !layout_->baskets->severalReaders()) return unzip(file, product, local, number);
  SharedBaskets::Key const key{file.index, product, number};
  bool unzipped = false;
  auto basket = layout_->baskets->find(key, runs, [&]() -> SharedBaskets::Held {
    unzipped = true;
    unzip(file, product, local, number);
    if (!reader.values) return nullptr;
    auto copy = copyOut(reader);
    // Every lane reads the copy, so ROOT's basket goes: its memory serves
    // the next basket this lane decompresses, of any branch, where kept it
    // stayed with its branch, and a second lane's handle first touched a
    // buffer for each of 944 branches (object branches at 2 threads: 59,000
    // page faults → 42,600, 1.18× the event rate). Nothing may point into it
    // then, should keeping the copy throw.
    reader.values = nullptr;
    reader.offsets = nullptr;
    branch.DropBaskets("all");
    return copy;
  });
  if (basket) {
    reader.window = {basket->first, basket->end, -1};
    reader.values = basket->values();
    reader.offsets = basket->entryOffsets();
    reader.last = basket->last;
    reader.shared = std::move(basket);
    reader.sharedNumber = number;
  } else if (!unzipped) {
    unzip(file, product, local, number);  // the lane that made it found it unfit for reading from baskets
  }
}

long long TreeSource::runsIn(TBranch& branch, long long number, std::uint64_t fileStart) const {
  auto const* entries = branch.GetBasketEntry();
  auto const first = fileStart + static_cast<std::uint64_t>(entries[number]);
  auto const last = fileStart + static_cast<std::uint64_t>(entries[number + 1]) - 1;
  return static_cast<long long>(last / chunk_ - first / chunk_) + 1;
}

SharedBaskets::Held TreeSource::copyOut(Reader const& reader) {
  auto basket = std::make_shared<UnzippedBasket>();
  auto const entries = static_cast<std::size_t>(reader.window.end - reader.window.first);
  auto const bytes = reader.offsets ? static_cast<std::size_t>(reader.last) : entries * reader.stride;
  basket->bytes.assign(reader.values, reader.values + bytes);
  if (reader.offsets) basket->offsets.assign(reader.offsets, reader.offsets + entries);
  basket->first = reader.window.first;
  basket->end = reader.window.end;
  basket->last = reader.last;
  return basket;
}

void TreeSource::unzip(OpenFile& file, std::size_t product, long long local, long long number) {
  auto& reader = file.readers[product];
  auto& branch = *reader.branch;
  ReadingScope const reading(noteOf(layout_->branches[product].name.c_str(), local));
  ThrowOnRootFatal const guard;
  auto const errors = rootErrorsOnThisThread();
  try {
    if (file.tree->GetReadEntry() != local) file.tree->LoadTree(local);  // the read-ahead cache follows it
    reader.check->require(local);  // reads the basket, if it is sound
  } catch (Exception const& damage) {
    throw readFailure(product, local, damage.message());
  }
  TBasket* basket = nullptr;
  try {
    if (number >= 0 && number < branch.GetWriteBasket()) basket = branch.GetBasket(static_cast<Int_t>(number));
  } catch (Exception const& fatal) {
    throw fatalFailure(file, product, local, fatal);
  }
  if (rootErrorsOnThisThread() != errors) throw readFailure(product, local, takeRootMessage());
  // Where ROOT's GetEntry finds an entry (entry offsets, else a fixed size);
  // the last basket, kept in the tree's own record, is read entry by entry
  // instead, for the rest of the file, as is one laid out otherwise.
  auto const readByRoot = [&reader] {
    reader.values = nullptr;
    reader.fromBaskets = false;
    reader.window = {};
  };
  auto const* offsets = basket ? basket->GetEntryOffset() : nullptr;
  if (!basket || !basket->GetBufferRef() || basket->GetDisplacement() ||
      (!offsets && (!reader.stride || basket->GetNevBufSize() != static_cast<int>(reader.stride)))) {
    return readByRoot();
  }
  auto const first = branch.GetBasketEntry()[number];
  auto const entries = basket->GetNevBuf();
  reader.window = {first, first + entries, -1};
  reader.values = basket->GetBufferRef()->Buffer() + (offsets ? 0 : basket->GetKeylen());
  reader.offsets = offsets;
  reader.last = basket->GetLast();
  if (!entriesFit(file, product)) readByRoot();
}

bool TreeSource::entriesFit(OpenFile& file, std::size_t product) {
  auto const& reader = file.readers[product];
  if (!reader.offsets) return true;
  auto const size = reader.fundamental->size;
  for (auto entry = reader.window.first; entry < reader.window.end; ++entry) {
    auto const [value, bytes] = stored(file, product, entry);
    switch (reader.kind) {
      case Kind::Scalar:
        if (bytes != size) return false;
        break;
      case Kind::Array:
        if (bytes % size != 0) return false;
        break;
      default:
        if (!isStreamedVector(value, bytes, size)) return false;
        break;
    }
  }
  return true;
}

Exception TreeSource::fatalFailure(OpenFile& file, std::size_t product, long long entry, Exception const& fatal) const {
  file.readers[product].fatal = true;
  file.fatal[product] = "entry " + std::to_string(entry) + ": " + fatal.message();
  return readFailure(product, entry, fatal.message());
}

Exception TreeSource::readFailure(std::size_t product, long long entry, std::string const& why) const {
  return Exception("cannot read branch '" + layout_->branches[product].name + "' of entry " + std::to_string(entry) +
                   " of TTree '" + layout_->tree + "' in '" + origin() + "': " + why);
}

void TreeSource::readEntry(OpenFile& file, std::size_t product, long long entry, Held& held) const {
  auto& reader = file.readers[product];
  auto* pool = reader.pool;
  if (reader.fatal) throw readFailure(product, entry, "not read after ROOT's fatal error in " + file.fatal[product]);
  try {
    reader.check->require(entry);  // before ROOT follows what a damaged basket says
  } catch (Exception const& damage) {
    throw readFailure(product, entry, damage.message());
  }
  // Pooled objects keep their allocations: reading into one allocates
  // nothing once it has held an entry as large.
  if (pool && !held.object) held.object = pool->take();
  // The object was last touched a whole event of every branch ago, so it is
  // out of the caches: fetch it while ROOT reads, for the swap below (on the
  // object-branch NanoAOD, 1 thread, that miss took 3-15% of the profile).
  if (reader.fundamental && held.object) prefetchVector(held.object);
  Int_t bytes = -1;
  auto const errors = rootErrorsOnThisThread();
  try {
    if (reader.kind == Kind::Emulated) held.object = reader.cls->New();  // owned by its EmulatedObject product
    // An object branch notices a new address on GetEntry, at some cost. A
    // vector is read into the same object each time, and swapped out.
    if (reader.cls && !reader.fundamental) reader.object = held.object;
    bytes = reader.branch->GetEntry(entry);
  } catch (Exception const& fatal) {
    // The object ROOT was filling may be half-built: neither reused nor destroyed.
    auto* filling = reader.object;
    if (pool) filling == held.object ? pool->discard(held.object) : pool->putBack(held.object);
    held.object = nullptr;
    if (filling) {  // the file's own, which it destroys at its end: not that one
      auto& initial = file.initialObjects;
      initial.erase(std::remove(initial.begin(), initial.end(), std::make_pair(reader.cls, filling)), initial.end());
    }
    throw fatalFailure(file, product, entry, fatal);
  }
  // ROOT reports what it noticed (a byte count that does not match) and reads on.
  if (bytes < 0 || rootErrorsOnThisThread() != errors) {
    if (pool) pool->putBack(held.object);
    if (reader.kind == Kind::Emulated) reader.cls->Destructor(held.object);
    held.object = nullptr;
    throw readFailure(product, entry, takeRootMessage());
  }
  auto* leaf = reader.leaf;
  switch (reader.kind) {
    case Kind::Scalar: std::memcpy(held.scalar.data(), leaf->GetValuePointer(), reader.fundamental->size); break;
    case Kind::Array:
      reader.fundamental->assignArray(held.object, leaf->GetValuePointer(), static_cast<std::size_t>(leaf->GetLen()));
      break;
    case Kind::String: *static_cast<std::string*>(held.object) = static_cast<char const*>(leaf->GetValuePointer()); break;
    case Kind::Object:
      if (reader.fundamental) reader.fundamental->swapArrays(reader.object, held.object);
      break;
    case Kind::Emulated: break;
  }
  held.bytes = static_cast<std::uint32_t>(bytes);
  held.ready = true;
}

void TreeSource::drop(Reader const& reader, Held& held) {
  if (held.ready && reader.kind == Kind::Emulated) reader.cls->Destructor(std::exchange(held.object, nullptr));
  held.ready = false;
}

ReadingNote TreeSource::noteOf(char const* branch, long long entry) const {
  return {sequence_.files()[originFile_].c_str(), "TTree", layout_->tree.c_str(), "branch", branch, entry};
}

std::pair<TreeSource::OpenFile&, long long> TreeSource::fileOf(std::uint64_t entry) {
  auto const located = open_.locate(sequence_, entry, [this](std::size_t i) { return open(i); });
  originFile_ = located.index;
  return {located.file, static_cast<long long>(located.entry)};
}

TreeSource::OpenFile& TreeSource::opened(std::size_t index) {
  return open_.get(index, [this](std::size_t i) { return open(i); });
}

std::unique_ptr<TreeSource::OpenFile> TreeSource::open(std::size_t index) const {
  auto file = std::make_unique<OpenFile>();
  file->layout = layout_;
  file->index = index;
  auto const& path = sequence_.files()[index];
  auto opening = layout_->counts->opening(index);
  if (auto first = layout_->takeFirstFile(index); first.file) {
    file->file = std::move(first.file);
    file->tree = first.tree;
  } else {
    file->file = openInputFile(path);
    file->tree = findTree(*file->file, layout_->tree);
  }
  layout_->counts->learn(index, static_cast<std::uint64_t>(file->tree->GetEntries()));
  if (opening) opening.unlock();
  ReadingScope const reading({path.c_str(), "TTree", layout_->tree.c_str()});
  if (layout_->cacheBytes >= 0) file->tree->SetCacheSize(layout_->cacheBytes);
  auto const products = layout_->branches.size();
  file->readers.resize(products);  // never again: each object branch reads through its reader's `object`
  if (layout_->readAhead > 1) file->held.resize(products * layout_->readAhead);
  file->errors.resize(products);
  file->fatal.resize(products);
  auto const topLevel = topLevelBranches(*file->tree);
  auto const fileBytes = file->file->GetSize();
  for (std::size_t p = 0; p < products; ++p) {
    auto const& layout = layout_->branches[p];
    auto const found = topLevel.find(layout.name);
    auto* branch = found == topLevel.end() ? nullptr : found->second;
    if (!branch) throw Exception("'" + path + "' has no branch '" + layout.name + "' (the first input file has)");
    requireBasketsInFile(*branch, fileBytes, path, layout_->tree);
    auto& reader = file->readers[p];
    reader.kind = layout.kind;
    reader.pool = pools_[p].get();
    reader.fundamental = layout.fundamental;
    reader.cls = layout.cls;
    reader.branch = branch;
    reader.check.emplace(*branch, *file->file);
    if (layout.cls) {
      // Our own object from the start, so that ROOT never owns one.
      try {
        ThrowOnRootFatal const guard;
        reader.object = layout.cls->New();
        file->initialObjects.emplace_back(layout.cls, reader.object);
        branch->SetAddress(&reader.object);
      } catch (Exception const& fatal) {
        throw Exception("cannot read branch '" + layout.name + "' of TTree '" + layout_->tree + "' in '" + path +
                        "': " + fatal.message());
      }
    } else {
      reader.leaf = static_cast<TLeaf*>(branch->GetListOfLeaves()->At(0));
    }
    if (fromBaskets() && readableFromBaskets(layout, *branch)) {
      reader.fromBaskets = true;
      if (layout.kind == Kind::Object) reader.header = kVectorHeader;
      if (reader.leaf && !reader.leaf->GetLeafCount()) {
        reader.stride = static_cast<std::uint32_t>(layout.fundamental->size * static_cast<std::size_t>(reader.leaf->GetLenStatic()));
      }
    }
  }
  if (layout_->hasIds) {
    try {
      file->idLeaves = idLeavesOf(*file->tree, layout_->idBranch);
    } catch (Exception const& error) {
      throw Exception("'" + path + "': " + error.message());
    }
  }
  return file;
}

namespace {
RegisterSource<TreeSource> const registration(
    "root",
    "reads a TTree, every top-level branch a product read on demand, and the run and lumi products of NanoAOD's "
    "Runs and LuminosityBlocks trees: file=PATH (repeatable) or files=LIST, "
    "tree=NAME (Events), id=BRANCH (a leaf-list branch of run, luminosityBlock and event leaves giving the ids), "
    "branches=GLOB, exclude=GLOB, handles=lane|shared (lane, the default: each lane reads with file handles of its "
    "own, so threads read concurrently; shared: one set, each event read whole as it is fetched, by one thread at a "
    "time), readahead=N (entries of a branch read "
    "at a time, default 64, fewer where 64 entries of the branches would hold over 8 MiB; with handles=lane, branches "
    "of fundamental types and std::vectors of them are read a basket at a time instead; 1: every branch entry by entry), chunk=N, cache=BYTES (ROOT's TTreeCache; by default "
    "none when the first file is on local storage, ROOT's automatic size on a network or FUSE filesystem), "
    "imt=true|false, "
    "dictionaries=DIR (build and cache dictionaries for classes ROOT can only emulate, so outputs can write them), "
    "skip-bad-files=true|false (go on past a listed file that cannot be read or lacks the tree, naming it), "
    "unreadable=refuse|skip (branches that cannot be read here, found before the job: refuse names them and the "
    "exclude= globs that leave them out; skip reads the rest and lists them)");
}

}  // namespace lanes::rootio
