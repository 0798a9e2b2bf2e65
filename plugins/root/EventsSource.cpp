#include "root/EventsSource.h"

#include <TBranch.h>
#include <TClass.h>
#include <TFile.h>
#include <TTree.h>

#include <mutex>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

// How the bytes of one file are opened and deserialised (its EventProducts).
struct EventsSource::Format {
  FrameLevel level = FrameLevel::Event;
  std::vector<std::unique_ptr<ProductSerializer>> serializers;
};

// One entry: its ids and sizes, and its bytes once read and opened.
struct EventsSource::Batch {
  std::size_t file = 0;
  std::uint64_t entry = 0;
  std::shared_ptr<Format const> format;
  std::vector<UInt_t> run, luminosityBlock;
  std::vector<ULong64_t> event, events;
  std::vector<UInt_t> sizes;
  std::vector<char> blob;
  // The bytes of the batch's events (the blob, or its frame opened).
  std::once_flag opened;
  std::vector<char> payload;
  bool framed = false;
  char const* data() const { return framed ? payload.data() : blob.data(); }
  std::size_t size() const { return framed ? payload.size() : blob.size(); }
};

// One event of a batch, as a lane holds it.
struct EventsSource::Record {
  std::shared_ptr<Batch> batch;
  std::size_t index;
  std::vector<std::uint64_t> offsets;  // P + 1: where each product begins and ends in the event's bytes
  std::once_flag opened;  // compress=event: the event's frame
  std::vector<char> payload;
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
  std::shared_ptr<Format> format = std::make_shared<Format>();

  [[noreturn]] void notRootEvents(std::string const& why) const {
    throw Exception("'" + path + "' is not a root-events file (" + why + ")");
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

EventsSource::EventsSource(Options const& options, PluginOptions const& checked) : files_(inputFiles(checked)) {
  initialiseRoot();
  bool const skipBad = options.getBool("skip-bad-files", false);
  checked.forOption("file", [&] {
    // As the root source: the others are opened when reached (or now, to skip the bad ones).
    if (!skipBad) {
      for (std::size_t index = 1; index < files_.size(); ++index) requireReadable(files_[index]);
    }
    fileIndex_ = openFirstReadable(files_, skipBad ? &skipped_ : nullptr,
                                   [&](std::size_t index) { file_ = open(index); });
    if (skipBad) {
      counts_ = std::make_unique<EntryCounts>(files_.size());
      countOrSkip(files_, fileIndex_ + 1, *counts_, skipped_, [&](std::size_t index) { return open(index)->entries; });
    }
  });
}

EventsSource::~EventsSource() = default;

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

  std::vector<std::string>* labels = nullptr;
  std::vector<std::string>* types = nullptr;
  std::string *serialization = nullptr, *compress = nullptr;
  products->SetBranchAddress("labels", &labels);
  products->SetBranchAddress("types", &types);
  products->SetBranchAddress("serialization", &serialization);
  products->SetBranchAddress("compress", &compress);
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
  file->format->level = parseFrameLevel(*compress);
  for (std::size_t i = 0; i < labels->size(); ++i) {
    auto const& label = (*labels)[i];
    auto const& typeName = (*types)[i];
    RootType type;
    if ((type.fundamental = fundamentalByRootName(typeName))) {
      type.name = type.fundamental->ntupleName;
      if (first) declare({label, type.fundamental->scalar, {}});
    } else {
      type.cls = TClass::GetClass(typeName.c_str());
      if (!type.cls || !type.cls->HasDictionary() || !type.cls->GetTypeInfo()) {
        throw Exception("product '" + label + "' of '" + file->path + "' is of class '" + typeName +
                        "', which has no dictionary here");
      }
      type.name = type.cls->GetName();
      if (first) declare({label, *type.cls->GetTypeInfo(), type.name});
    }
    file->format->serializers.push_back(makeSerializer(kind, type, label));
  }
  if (first) {
    labels_ = *labels;
    types_ = *types;
    declaredBy_ = file->path;
  }
  return file;
}

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
  for (auto* branch : file_->idBranches) ok = ok && branch->GetEntry(entry_) > 0;
  if (!ok) fail(fileIndex_, entry_, "its ids and sizes cannot be read: " + takeRootMessage());
  auto ids = std::make_unique<Batch>();
  ids->file = fileIndex_;
  ids->entry = static_cast<std::uint64_t>(entry_);
  ids->format = file_->format;
  // The branches keep reading into the file's vectors; the batch takes their contents.
  auto& bound = file_->bound;
  ids->run.swap(*bound.run);
  ids->luminosityBlock.swap(*bound.luminosityBlock);
  ids->event.swap(*bound.event);
  ids->events.swap(*bound.events);
  ids->sizes.swap(*bound.sizes);
  auto const n = ids->event.size();
  if (n == 0 || ids->run.size() != n || ids->luminosityBlock.size() != n || ids->events.size() != n + 1 ||
      ids->sizes.size() != n * labels_.size()) {
    fail(fileIndex_, entry_, "its ids and sizes do not match (corrupt entry)");
  }
  ids_ = std::move(ids);
  index_ = 0;
  loaded_.reset();
  return true;
}

std::shared_ptr<EventsSource::Batch> EventsSource::loadBlob() {
  if (loaded_) return loaded_;
  ThrowOnRootFatal guard;
  takeRootMessage();
  if (file_->blobBranch->GetEntry(entry_) <= 0) {
    fail(fileIndex_, entry_, "its blob cannot be read: " + takeRootMessage());
  }
  ids_->blob.swap(*file_->bound.blob);
  loaded_ = std::shared_ptr<Batch>(std::move(ids_));
  return loaded_;
}

bool EventsSource::next(SourceEvent& event) {
  // The lane that held the event of `event.entry` has finished it.
  if (auto const* previous = reinterpret_cast<Record const*>(event.entry)) records_.erase(previous);
  event.entry = 0;
  Batch const* ids = loaded_ ? loaded_.get() : ids_.get();
  if (!ids || index_ >= ids->event.size()) {
    if (!nextEntry()) return false;
  }
  auto record = std::make_unique<Record>();
  record->batch = loadBlob();
  record->index = index_++;
  auto const& batch = *record->batch;
  auto const* sizes = batch.sizes.data() + record->index * labels_.size();
  record->offsets.resize(labels_.size() + 1);
  for (std::size_t p = 0; p < labels_.size(); ++p) record->offsets[p + 1] = record->offsets[p] + sizes[p];
  event.id = EventId{batch.run[record->index], batch.luminosityBlock[record->index], batch.event[record->index]};
  event.entry = reinterpret_cast<std::uint64_t>(record.get());
  records_.emplace(record.get(), std::move(record));
  return true;
}

bool EventsSource::skip(std::uint64_t count) {
  while (count > 0) {
    Batch const* ids = loaded_ ? loaded_.get() : ids_.get();
    std::size_t const left = ids ? ids->event.size() - index_ : 0;
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
  auto& record = *reinterpret_cast<Record*>(event.entry);
  auto& batch = *record.batch;
  auto const& format = *batch.format;
  try {
    std::call_once(batch.opened, [&] {
      if (!framesBatches(format.level)) return;
      codec::decompress(batch.blob.data(), batch.blob.size(), batch.payload);
      batch.framed = true;
    });
    auto const& events = batch.events;
    auto const first = events[record.index], last = events[record.index + 1];
    if (first > last || last > batch.size()) throw Exception("event bytes beyond the batch's (corrupt offsets)");
    char const* bytes = batch.data() + first;
    std::size_t size = last - first;
    if (format.level == FrameLevel::Event) {
      std::call_once(record.opened, [&] { codec::decompress(bytes, size, record.payload); });
      bytes = record.payload.data();
      size = record.payload.size();
    }
    auto const offset = record.offsets[product], end = record.offsets[product + 1];
    if (end > size) throw Exception("product bytes beyond the event's (corrupt sizes)");
    bytes += offset;
    size = end - offset;
    if (framesProducts(format.level)) {
      thread_local std::vector<char> raw;
      codec::decompress(bytes, size, raw);
      format.serializers[product]->read(raw.data(), raw.size(), slot);
    } else {
      format.serializers[product]->read(bytes, size, slot);
    }
  } catch (Exception const& error) {
    fail(batch.file, batch.entry,
         "product '" + labels_[product] + "' of event " + event.id.str() + ": " + error.message());
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
