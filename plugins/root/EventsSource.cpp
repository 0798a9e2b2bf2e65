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

// One entry: its ids and sizes, and its bytes once read and opened.
struct EventsSource::Batch {
  std::uint64_t entry = 0;
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

EventsSource::EventsSource(Options const& options) : EventsSource(options, PluginOptions(options, "root-events")) {}

EventsSource::EventsSource(Options const& options, PluginOptions const& checked) : path_(checked.required("file")) {
  initialiseRoot();
  checked.forOption("file", [&] {
    open();
    readProducts();
  });
}

EventsSource::~EventsSource() = default;

void EventsSource::open() {
  ThrowOnRootFatal guard;
  takeRootMessage();
  file_.reset(TFile::Open(path_.c_str(), "READ"));
  if (!file_ || file_->IsZombie()) {
    throw Exception("cannot open '" + path_ + "' as a ROOT file: " + takeRootMessage());
  }
  if (file_->TestBit(TFile::kRecovered)) throw Exception("'" + path_ + "' is truncated (ROOT had to recover it)");
  tree_ = file_->Get<TTree>(kBlobTree);
  if (!tree_ || !file_->Get<TTree>(kProductTree)) {
    throw Exception("'" + path_ + "' is not a root-events file (no " + kBlobTree + " and " + kProductTree +
                    " trees)");
  }
  for (auto const* branch : {"run", "luminosityBlock", "event", "events", "sizes", "blob"}) {
    if (!tree_->GetBranch(branch)) {
      throw Exception("'" + path_ + "' is not a root-events file (tree " + kBlobTree + " has no branch '" + branch +
                      "')");
    }
  }
  entries_ = static_cast<std::uint64_t>(tree_->GetEntries());
  bound_ = std::make_unique<Bound>();
  idBranches_ = {bind("run", bound_->run), bind("luminosityBlock", bound_->luminosityBlock),
                 bind("event", bound_->event), bind("events", bound_->events), bind("sizes", bound_->sizes)};
  blobBranch_ = bind("blob", bound_->blob);
}

template <typename T>
TBranch* EventsSource::bind(char const* name, std::vector<T>*& address) {
  address = new std::vector<T>;
  if (tree_->SetBranchAddress(name, &address) < 0) {
    throw Exception("'" + path_ + "' is not a root-events file (branch '" + name + "' is not a vector of " +
                    TClass::GetClass(typeid(std::vector<T>))->GetName() + ")");
  }
  return tree_->GetBranch(name);
}

EventsSource::Bound::~Bound() {
  delete run;
  delete luminosityBlock;
  delete event;
  delete events;
  delete sizes;
  delete blob;
}

void EventsSource::readProducts() {
  auto* products = file_->Get<TTree>(kProductTree);
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
  if (!read) throw Exception("cannot read the product list of '" + path_ + "' (tree " + kProductTree + ")");
  auto const kind = parseSerialization(*serialization);
  level_ = parseFrameLevel(*compress);
  for (std::size_t i = 0; i < labels->size(); ++i) {
    auto const& label = (*labels)[i];
    auto const& typeName = (*types)[i];
    RootType type;
    if ((type.fundamental = fundamentalByRootName(typeName))) {
      type.name = type.fundamental->ntupleName;
      declare({label, type.fundamental->scalar, {}});
    } else {
      type.cls = TClass::GetClass(typeName.c_str());
      if (!type.cls || !type.cls->HasDictionary() || !type.cls->GetTypeInfo()) {
        throw Exception("product '" + label + "' of '" + path_ + "' is of class '" + typeName +
                        "', which has no dictionary here");
      }
      type.name = type.cls->GetName();
      declare({label, *type.cls->GetTypeInfo(), type.name});
    }
    labels_.push_back(label);
    serializers_.push_back(makeSerializer(kind, type, label));
  }
}

bool EventsSource::nextEntry() {
  if (static_cast<std::uint64_t>(entry_ + 1) >= entries_) return false;
  ++entry_;
  ThrowOnRootFatal guard;
  takeRootMessage();
  bool ok = true;
  for (auto* branch : idBranches_) ok = ok && branch->GetEntry(entry_) > 0;
  if (!ok) fail(entry_, "its ids and sizes cannot be read: " + takeRootMessage());
  auto ids = std::make_unique<Batch>();
  ids->entry = static_cast<std::uint64_t>(entry_);
  // The branches keep reading into the source's vectors; the batch takes their contents.
  ids->run.swap(*bound_->run);
  ids->luminosityBlock.swap(*bound_->luminosityBlock);
  ids->event.swap(*bound_->event);
  ids->events.swap(*bound_->events);
  ids->sizes.swap(*bound_->sizes);
  auto const n = ids->event.size();
  if (n == 0 || ids->run.size() != n || ids->luminosityBlock.size() != n || ids->events.size() != n + 1 ||
      ids->sizes.size() != n * labels_.size()) {
    fail(entry_, "its ids and sizes do not match (corrupt entry)");
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
  if (blobBranch_->GetEntry(entry_) <= 0) fail(entry_, "its blob cannot be read: " + takeRootMessage());
  ids_->blob.swap(*bound_->blob);
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
  try {
    std::call_once(batch.opened, [&] {
      if (!framesBatches(level_)) return;
      codec::decompress(batch.blob.data(), batch.blob.size(), batch.payload);
      batch.framed = true;
    });
    auto const& events = batch.events;
    auto const first = events[record.index], last = events[record.index + 1];
    if (first > last || last > batch.size()) throw Exception("event bytes beyond the batch's (corrupt offsets)");
    char const* bytes = batch.data() + first;
    std::size_t size = last - first;
    if (level_ == FrameLevel::Event) {
      std::call_once(record.opened, [&] { codec::decompress(bytes, size, record.payload); });
      bytes = record.payload.data();
      size = record.payload.size();
    }
    auto const offset = record.offsets[product], end = record.offsets[product + 1];
    if (end > size) throw Exception("product bytes beyond the event's (corrupt sizes)");
    bytes += offset;
    size = end - offset;
    if (framesProducts(level_)) {
      thread_local std::vector<char> raw;
      codec::decompress(bytes, size, raw);
      serializers_[product]->read(raw.data(), raw.size(), slot);
    } else {
      serializers_[product]->read(bytes, size, slot);
    }
  } catch (Exception const& error) {
    fail(batch.entry, "product '" + labels_[product] + "' of event " + event.id.str() + ": " + error.message());
  }
}

void EventsSource::fail(std::uint64_t entry, std::string const& what) const {
  throw Exception("cannot read '" + path_ + "' entry " + std::to_string(entry) + ": " + what);
}

namespace {
RegisterSource<EventsSource> const registration(
    "root-events",
    "reads a root-events file: one shared handle reads each entry, the lanes open frames and deserialise "
    "products concurrently: file=PATH",
    {{"file", FileAccess::Read}});
}

}  // namespace lanes::rootio
