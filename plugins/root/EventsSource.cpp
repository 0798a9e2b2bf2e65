#include "root/EventsSource.h"

#include <TBranch.h>
#include <TClass.h>
#include <TFile.h>
#include <TTree.h>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

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
    products_.push_back(storedProduct(path_, (*labels)[i], (*types)[i], kind));
    declare(products_.back().description);
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
  auto ids = std::make_unique<StoredBatch>();
  ids->index = static_cast<std::uint64_t>(entry_);
  // The branches keep reading into the source's vectors; the batch takes their contents.
  auto& batch = ids->batch;
  batch.run.swap(*bound_->run);
  batch.luminosityBlock.swap(*bound_->luminosityBlock);
  batch.event.swap(*bound_->event);
  batch.events.swap(*bound_->events);
  batch.sizes.swap(*bound_->sizes);
  if (!batch.consistent(products_.size())) fail(entry_, "its ids and sizes do not match (corrupt entry)");
  ids_ = std::move(ids);
  index_ = 0;
  loaded_.reset();
  return true;
}

std::shared_ptr<StoredBatch> EventsSource::loadBlob() {
  if (loaded_) return loaded_;
  ThrowOnRootFatal guard;
  takeRootMessage();
  if (blobBranch_->GetEntry(entry_) <= 0) fail(entry_, "its blob cannot be read: " + takeRootMessage());
  ids_->batch.blob.swap(*bound_->blob);
  loaded_ = std::shared_ptr<StoredBatch>(std::move(ids_));
  return loaded_;
}

bool EventsSource::next(SourceEvent& event) {
  // The lane that held the event of `event.entry` has finished it.
  if (auto const* previous = reinterpret_cast<StoredEvent const*>(event.entry)) records_.erase(previous);
  event.entry = 0;
  StoredBatch const* ids = loaded_ ? loaded_.get() : ids_.get();
  if (!ids || index_ >= ids->batch.size()) {
    if (!nextEntry()) return false;
  }
  auto record = storedEvent(loadBlob(), index_++, products_.size());
  event.id = idOf(*record);
  event.entry = reinterpret_cast<std::uint64_t>(record.get());
  records_.emplace(record.get(), std::move(record));
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
  auto& record = *reinterpret_cast<StoredEvent*>(event.entry);
  try {
    readStoredProduct(record, level_, product, *products_[product].serializer, slot);
  } catch (Exception const& error) {
    fail(record.batch->index, "product '" + products_[product].description.label + "' of event " + event.id.str() +
                                  ": " + error.message());
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
