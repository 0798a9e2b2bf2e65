#include "root/EventsSource.h"

#include <TBranch.h>
#include <TClass.h>
#include <TFile.h>
#include <TTree.h>

#include <optional>
#include <stdexcept>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ReadingNote.h"
#include "root/BasketCheck.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

// How the products of one file are stored: each file records its own
// serialisation and compression (its EventProducts).
struct EventsSource::Format {
  FrameLevel level = FrameLevel::Event;
  SerializationKind serialization = SerializationKind::Root;
  std::vector<StoredProduct> products;
};

// The runs, lumis and records of every file, read by whichever of the
// source and its look-ahead copy needs them first.
struct EventsSource::SharedBlocks {
  std::once_flag read;
  InputBlocks blocks;
};

// One event, as a lane holds it, with its file's format.
struct EventsSource::Record : StoredEvent {
  using StoredEvent::StoredEvent;
  std::shared_ptr<Format const> format;
  std::size_t file = 0;
};

// One input file, open, with the vectors its tree's branches read into
// (ROOT holds their addresses).
struct EventsSource::OpenFile {
  struct Bound {
    std::vector<unsigned int>*run = nullptr, *luminosityBlock = nullptr, *sizes = nullptr;
    std::vector<unsigned long long>*event = nullptr, *events = nullptr;
    std::vector<char>* blob = nullptr;
    ~Bound() {
      delete run;
      delete luminosityBlock;
      delete event;
      delete events;
      delete sizes;
      delete blob;
    }
  };

  std::string path;
  Bound bound;  // declared before file: outlives the tree that points at its vectors
  std::unique_ptr<TFile> file;
  TTree* tree = nullptr;  // owned by file
  std::uint64_t entries = 0;
  std::vector<TBranch*> idBranches;
  TBranch* blobBranch = nullptr;
  std::vector<BasketCheck> idChecks;  // per id branch
  std::optional<BasketCheck> blobCheck;  // once the blob branch is bound
  std::shared_ptr<Format> format = std::make_shared<Format>();

  [[noreturn]] void notRootEvents(std::string const& why) const {
    throw Exception("'" + path + "' is not a root-events file (" + why + ")");
  }

  // The check of `branch` (of tree `tree`)'s baskets, once their places fit the file.
  BasketCheck checkedBaskets(TBranch& branch, char const* tree = kBlobTree) {
    requireBasketsInFile(branch, file->GetSize(), path, tree);
    return BasketCheck(branch, *file);
  }

  // The note of a read of `branch` at `entry`, for a fatal signal's message.
  ReadingNote noteOf(TBranch const& branch, long long entry) const {
    return {path.c_str(), "TTree", kBlobTree, "branch", branch.GetName(), entry};
  }

  // Points branch `name` at `address` (a new vector); throws if the branch is not a vector of T.
  template <typename T>
  TBranch* bind(char const* name, std::vector<T>*& address) {
    address = new std::vector<T>;
    if (tree->SetBranchAddress(name, &address) < 0) {
      notRootEvents(std::string("branch '") + name + "' is not a vector of " +
                    TClass::GetClass(typeid(std::vector<T>))->GetName());
    }
    return tree->GetBranch(name);
  }
};

EventsSource::EventsSource(Options const& options) : EventsSource(options, PluginOptions(options, "root-events")) {}

EventsSource::EventsSource(Options const& options, PluginOptions const& checked)
    : files_(inputFiles(checked)), readable_(files_.size(), true), blocks_(std::make_shared<SharedBlocks>()) {
  initialiseRoot();
  bool const skipBad = options.getBool("skip-bad-files", false);
  checked.forOption("file", [&] {
    // As the root source: the others are opened when reached (or now, to skip the bad ones).
    if (!skipBad) {
      for (std::size_t index = 1; index < files_.size(); ++index) requireReadable(files_[index]);
    }
    first_ = fileIndex_ = openFirstReadable(files_, skipBad ? &skipped_ : nullptr,
                                            [&](std::size_t index) { file_ = open(index); });
    if (skipBad) {
      counts_ = std::make_shared<EntryCounts>(files_.size());
      countOrSkip(files_, fileIndex_ + 1, *counts_, skipped_, [&](std::size_t index) {
        readable_[index] = false;  // until it opens
        auto const entries = open(index)->entries;
        readable_[index] = true;
        return entries;
      });
    }
    // The first file's run and lumi records declare their products.
    auto const records = readRecords(*file_->file, file_->path);
    auto const kind = file_->format->serialization;
    for (auto const& product : InputBlocks::productsOf(records.lumis, file_->path, kind)) {
      declareLumiProduct(product.description);
    }
    for (auto const& product : InputBlocks::productsOf(records.runs, file_->path, kind)) {
      declareRunProduct(product.description);
    }
  });
}

EventsSource::EventsSource(EventsSource const& other, std::shared_ptr<SharedBlocks> blocks)
    : files_(other.files_),
      counts_(other.counts_),
      readable_(other.readable_),
      first_(other.first_),
      labels_(other.labels_),
      types_(other.types_),
      declaredBy_(other.declaredBy_),
      fileIndex_(other.first_),
      classes_(other.classes_),
      blocks_(std::move(blocks)) {
  file_ = open(fileIndex_);
}

EventsSource::~EventsSource() = default;

std::unique_ptr<Source> EventsSource::lookAhead() const {
  if (runProducts().empty() && lumiProducts().empty()) return nullptr;
  return std::unique_ptr<Source>(new EventsSource(*this, blocks_));
}

bool EventsSource::at(std::uint64_t ordinal, SourceEvent& event) {
  if (ordinal < position_) throw std::logic_error("a root-events look-ahead reads ids in increasing order");
  if (!skip(ordinal - position_)) return false;
  position_ = ordinal;
  if (!ids_ || index_ >= ids_->batch.size()) {
    if (!nextEntry()) return false;
  }
  auto const& batch = ids_->batch;
  event.id = EventId{batch.run[index_], batch.luminosityBlock[index_], batch.event[index_]};
  return true;
}

InputBlocks const& EventsSource::blocks() {
  auto& shared = *blocks_;
  std::call_once(shared.read, [&] {
    for (auto index = first_; index < files_.size(); ++index) {
      if (!readable_[index]) continue;  // skipped (skip-bad-files=true)
      auto const file = open(index);    // checked against the first file
      shared.blocks.addRecords(readRecords(*file->file, file->path), file->path, file->format->serialization);
      indexIds(index, *file, shared.blocks);
    }
    shared.blocks.finish();
  });
  return shared.blocks;
}

void EventsSource::indexIds(std::size_t index, OpenFile& file, InputBlocks& blocks) const {
  ThrowOnRootFatal guard;
  auto& bound = file.bound;
  for (std::uint64_t entry = 0; entry < file.entries; ++entry) {
    for (std::size_t i = 0; i < 2; ++i) {  // run, luminosityBlock
      auto& branch = *file.idBranches[i];
      ReadingScope const reading(file.noteOf(branch, static_cast<long long>(entry)));
      try {
        file.idChecks[i].require(static_cast<long long>(entry));
      } catch (Exception const& damage) {
        fail(index, entry, std::string("branch '") + branch.GetName() + "': " + damage.message());
      }
      takeRootMessage();
      if (branch.GetEntry(static_cast<long long>(entry)) <= 0) {
        fail(index, entry, "its ids cannot be read: " + takeRootMessage());
      }
    }
    if (bound.run->size() != bound.luminosityBlock->size()) {
      fail(index, entry, "its ids do not match (corrupt entry)");
    }
    blocks.addEvents(bound.run->data(), bound.luminosityBlock->data(), bound.run->size());
  }
}

std::unique_ptr<EventsSource::OpenFile> EventsSource::open(std::size_t index) {
  auto file = std::make_unique<OpenFile>();
  file->path = files_[index];
  file->file = openInputFile(file->path);
  ThrowOnRootFatal guard;
  file->tree = file->file->Get<TTree>(kBlobTree);
  auto* products = file->file->Get<TTree>(kProductTree);
  if (!file->tree || !products) {
    file->notRootEvents(std::string("no ") + kBlobTree + " and " + kProductTree + " trees");
  }
  for (auto const* branch : {"run", "luminosityBlock", "event", "events", "sizes", "blob"}) {
    if (!file->tree->GetBranch(branch)) {
      file->notRootEvents(std::string("tree ") + kBlobTree + " has no branch '" + branch + "'");
    }
  }
  file->entries = static_cast<std::uint64_t>(file->tree->GetEntries());
  auto& bound = file->bound;
  file->idBranches = {file->bind("run", bound.run), file->bind("luminosityBlock", bound.luminosityBlock),
                      file->bind("event", bound.event), file->bind("events", bound.events),
                      file->bind("sizes", bound.sizes)};
  file->blobBranch = file->bind("blob", bound.blob);
  // Before ROOT follows what a damaged basket says (BasketCheck.h): these
  // branches hold ROOT's own bytes, which no frame checksum covers.
  for (auto* branch : file->idBranches) file->idChecks.push_back(file->checkedBaskets(*branch));
  file->blobCheck.emplace(file->checkedBaskets(*file->blobBranch));

  std::vector<std::string>* labels = nullptr;
  std::vector<std::string>* types = nullptr;
  std::string *serialization = nullptr, *compress = nullptr;
  products->SetBranchAddress("labels", &labels);
  products->SetBranchAddress("types", &types);
  products->SetBranchAddress("serialization", &serialization);
  products->SetBranchAddress("compress", &compress);
  ReadingScope const reading({file->path.c_str(), "TTree", kProductTree, nullptr, nullptr, 0});
  for (auto* object : *products->GetListOfBranches()) {
    try {
      file->checkedBaskets(*static_cast<TBranch*>(object), kProductTree).require(0);
    } catch (Exception const& damage) {
      throw Exception("cannot read the product list of '" + file->path + "' (tree " + kProductTree +
                      "): " + damage.message());
    }
  }
  bool const read = products->GetEntries() > 0 && products->GetEntry(0) > 0 && labels && types &&
                    serialization && compress && labels->size() == types->size();
  std::unique_ptr<std::vector<std::string>> ownLabels(labels), ownTypes(types);
  std::unique_ptr<std::string> ownSerialization(serialization), ownCompress(compress);
  products->ResetBranchAddresses();
  if (!read) throw Exception("cannot read the product list of '" + file->path + "' (tree " + kProductTree + ")");
  bool const first = declaredBy_.empty();
  if (!first && (*labels != labels_ || *types != types_)) {
    throw Exception("'" + file->path + "' holds other products than the first input file '" + declaredBy_ + "' (" +
                    std::to_string(labels->size()) + " products, not " + std::to_string(labels_.size()) +
                    ", or of other names or types)");
  }
  auto const kind = parseSerialization(*serialization);
  file->format->serialization = kind;
  file->format->level = parseFrameLevel(*compress);
  for (std::size_t i = 0; i < labels->size(); ++i) {
    file->format->products.push_back(storedProduct(file->path, (*labels)[i], (*types)[i], kind));
    if (first) declare(file->format->products.back().description);
  }
  if (first) {
    labels_ = *labels;
    types_ = *types;
    declaredBy_ = file->path;
    classes_ = classesOf(file->format->products);
  }
  return file;
}

// ROOT reads a file by seek and read: processes forked after it was opened
// would move each other's offset between the two and read wrong bytes.
void EventsSource::afterFork() { file_ = open(fileIndex_); }

bool EventsSource::nextEntry() {
  while (static_cast<std::uint64_t>(entry_ + 1) >= file_->entries) {
    if (fileIndex_ + 1 >= files_.size()) return false;
    ++fileIndex_;
    if (counts_ && counts_->known(fileIndex_) == 0) continue;  // skipped, or empty
    file_ = open(fileIndex_);  // the batches in flight hold their bytes: the last file may close
    entry_ = -1;
  }
  ++entry_;
  ThrowOnRootFatal guard;
  takeRootMessage();
  bool ok = true;
  for (std::size_t i = 0; ok && i < file_->idBranches.size(); ++i) {
    auto& branch = *file_->idBranches[i];
    ReadingScope const reading(file_->noteOf(branch, entry_));
    requireBaskets(file_->idChecks[i], branch);
    ok = branch.GetEntry(entry_) > 0;
  }
  if (!ok) fail(fileIndex_, entry_, "its ids and sizes cannot be read: " + takeRootMessage());
  auto ids = std::make_unique<StoredBatch>();
  ids->index = static_cast<std::uint64_t>(entry_);
  // The branches keep reading into the file's vectors; the batch takes their contents.
  auto& bound = file_->bound;
  auto& batch = ids->batch;
  batch.run.swap(*bound.run);
  batch.luminosityBlock.swap(*bound.luminosityBlock);
  batch.event.swap(*bound.event);
  batch.events.swap(*bound.events);
  batch.sizes.swap(*bound.sizes);
  if (!batch.consistent(labels_.size())) fail(fileIndex_, entry_, "its ids and sizes do not match (corrupt entry)");
  ids_ = std::move(ids);
  index_ = 0;
  loaded_.reset();
  return true;
}

std::shared_ptr<StoredBatch> EventsSource::loadBlob() {
  if (loaded_) return loaded_;
  ThrowOnRootFatal guard;
  takeRootMessage();
  ReadingScope const reading(file_->noteOf(*file_->blobBranch, entry_));
  requireBaskets(*file_->blobCheck, *file_->blobBranch);
  if (file_->blobBranch->GetEntry(entry_) <= 0) {
    fail(fileIndex_, entry_, "its blob cannot be read: " + takeRootMessage());
  }
  ids_->batch.blob.swap(*file_->bound.blob);
  loaded_ = std::shared_ptr<StoredBatch>(std::move(ids_));
  return loaded_;
}

bool EventsSource::next(SourceEvent& event) {
  auto objects = records_.next(event.entry, classes_);  // the lane has finished the event of event.entry
  event.entry = 0;
  StoredBatch const* ids = loaded_ ? loaded_.get() : ids_.get();
  if (!ids || index_ >= ids->batch.size()) {
    if (!nextEntry()) return false;
  }
  auto record = std::make_unique<Record>(loadBlob(), index_++, labels_.size(), std::move(objects));
  record->format = file_->format;
  record->file = fileIndex_;
  event.id = idOf(*record);
  event.entry = records_.hold(std::move(record));
  return true;
}

bool EventsSource::skip(std::uint64_t count) {
  while (count > 0) {
    StoredBatch const* ids = loaded_ ? loaded_.get() : ids_.get();
    std::size_t const left = ids ? ids->batch.size() - index_ : 0;
    if (left == 0) {
      if (!nextEntry()) return false;
      continue;
    }
    auto const step = std::min<std::uint64_t>(left, count);
    index_ += step;
    count -= step;
  }
  return true;
}

void EventsSource::read(SourceEvent const& event, std::size_t product, ProductSlot& slot) {
  auto& record = HeldEvents<Record>::of(event);
  auto const& format = *record.format;
  try {
    readStoredProduct(record, format.level, product, *format.products[product].serializer, slot);
  } catch (Exception const& error) {
    fail(record.file, record.batch->index,
         "product '" + labels_[product] + "' of event " + event.id.str() + ": " + error.message());
  }
}

void EventsSource::requireBaskets(BasketCheck& check, TBranch const& branch) const {
  try {
    check.require(entry_);
  } catch (Exception const& damage) {
    fail(fileIndex_, entry_, std::string("branch '") + branch.GetName() + "': " + damage.message());
  }
}

void EventsSource::fail(std::size_t file, std::uint64_t entry, std::string const& what) const {
  throw Exception("cannot read '" + files_[file] + "' entry " + std::to_string(entry) + ": " + what);
}

namespace {
RegisterSource<EventsSource> const registration(
    "root-events",
    "reads root-events files, one after another: one shared handle reads each entry, the lanes open frames and "
    "deserialise products concurrently: file=PATH (repeatable) or files=LIST, skip-bad-files=true|false (go on past "
    "a listed file that cannot be read or holds other products, naming it)");
}

}  // namespace lanes::rootio
