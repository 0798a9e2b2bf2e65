#include "root/EventsOutput.h"

#include <TFile.h>
#include <TTree.h>

#include <limits>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::rootio {

// A batch of events as the tree's branches hold it; also one event's record
// on its way to a batch (then it holds that one event).
struct EventsOutput::Batch {
  std::vector<UInt_t> run, luminosityBlock;
  std::vector<ULong64_t> event;
  std::vector<char> blob;
  std::vector<ULong64_t> events{0};
  std::vector<UInt_t> sizes;

  std::size_t size() const { return event.size(); }
  // Appends `other`'s events.
  void append(Batch const& other) {
    run.insert(run.end(), other.run.begin(), other.run.end());
    luminosityBlock.insert(luminosityBlock.end(), other.luminosityBlock.begin(), other.luminosityBlock.end());
    event.insert(event.end(), other.event.begin(), other.event.end());
    auto const base = blob.size();
    for (std::size_t i = 1; i < other.events.size(); ++i) events.push_back(base + other.events[i]);
    blob.insert(blob.end(), other.blob.begin(), other.blob.end());
    sizes.insert(sizes.end(), other.sizes.begin(), other.sizes.end());
  }
};

EventsOutput::EventsOutput(std::string label, Options const& options)
    : EventsOutput(std::move(label), options, PluginOptions(options, "root-events")) {}

EventsOutput::EventsOutput(std::string label, Options const& options, PluginOptions const& checked)
    : Output(std::move(label)),
      file_(checked.forOption("file", [&] { return OutputFile(checked.required("file")); })),
      serialization_(parseSerialization(checked.choice("serialization", "root", {"root", "unrolled"}))),
      compression_(checked.forOption("compression", [&] {
        return codec::parseCompression(checked.choice("compression", "lz4", {"none", "lz4", "zstd"}),
                                       static_cast<int>(options.getInt("level", 0)), options.has("level"));
      })),
      level_(parseFrameLevel(checked.choice("compress", "event", {"product", "event", "batch", "both"}))),
      batchSize_(checked.positive("batch", 1, 1u << 20)) {
  initialiseRoot();
  keep(options.getAll("keep"));
}

EventsOutput::~EventsOutput() {
  if (group_) group_->wait();
  close();
}

void EventsOutput::beginJob(JobContext const& context) {
  serialized_ = serializedColumns(*this, context.registry, serialization_);
  laneBytes_.assign(context.lanes, std::vector<std::vector<char>>(serialized_.columns.size()));
  written_ = bytes_ = entries_ = 0;
  failed_ = false;
  error_ = nullptr;
  open_ = std::make_shared<Batch>();
  branches_ = std::make_unique<Batch>();
  // A part's own group: a forked worker's part runs in an arena of its own.
  group_ = std::make_unique<tbb::task_group>();
  serial_ = std::make_unique<LimitedTaskQueue>(*group_, 1);

  file_.begin(context.part);
  takeRootMessage();
  rootFile_.reset(TFile::Open(file_.temporaryPath().c_str(), "RECREATE", "", kSmallBranchCompression));
  if (!rootFile_ || rootFile_->IsZombie() || rootFile_->TestBit(TFile::kWriteError)) {
    file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
  }
  writeProducts();
  tree_ = new TTree(kBlobTree, "lanes root-events: serialised products per batch of events");
  tree_->SetDirectory(rootFile_.get());
  auto& b = *branches_;
  tree_->Branch("run", &b.run);
  tree_->Branch("luminosityBlock", &b.luminosityBlock);
  tree_->Branch("event", &b.event);
  tree_->Branch("blob", &b.blob)->SetCompressionSettings(0);  // the framework compressed it
  tree_->Branch("events", &b.events);
  tree_->Branch("sizes", &b.sizes);
}

void EventsOutput::writeProducts() {
  std::vector<std::string> labels, types;
  for (auto const& column : serialized_.columns) {
    labels.push_back(column.label);
    types.push_back(column.type.fundamental ? column.type.fundamental->rootName : column.type.name);
  }
  std::string serialization = nameOf(serialization_);
  std::string compression = codec::nameOf(compression_.algorithm);
  std::string compress = nameOf(level_);
  auto* products = new TTree(kProductTree, "lanes root-events: the products of every event");
  products->SetDirectory(rootFile_.get());
  products->Branch("labels", &labels);
  products->Branch("types", &types);
  products->Branch("serialization", &serialization);
  products->Branch("compression", &compression);
  products->Branch("compress", &compress);
  if (products->Fill() <= 0) file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
  products->ResetBranchAddresses();
}

void EventsOutput::productReady(Event const& event, ProductIndex product) const {
  auto const column = serialized_.columnOf[product];
  if (column < 0) return;  // an id product: the id is written apart
  auto& bytes = laneBytes_[event.lane()][column];
  bytes.clear();
  void const* object = rootObjectOf(event.slot(product), serialized_.columns[column].type);
  if (!framesProducts(level_)) {
    serialized_.serializers[column]->write(object, bytes);
    return;
  }
  thread_local std::vector<char> raw;
  raw.clear();
  serialized_.serializers[column]->write(object, raw);
  codec::compress(compression_, raw.data(), raw.size(), bytes);
}

void EventsOutput::write(Event const& event) const {
  rethrowError();
  auto record = std::make_shared<Batch>();
  record->run.push_back(event.id().run);
  record->luminosityBlock.push_back(event.id().luminosityBlock);
  record->event.push_back(event.id().event);
  thread_local std::vector<char> joined;
  auto& target = level_ == FrameLevel::Event ? joined : record->blob;
  target.clear();
  auto const& lane = laneBytes_[event.lane()];
  auto const& columns = serialized_.columns;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    // productReady() was not called for it: the lane holds another event's bytes.
    if (!event.has(columns[c].index)) {
      throw Exception("root-events: product '" + columns[c].label + "' is missing from event " + event.id().str() +
                      "; leave it out with keep=");
    }
    if (lane[c].size() > std::numeric_limits<UInt_t>::max()) {
      throw Exception("root-events: product '" + columns[c].label + "' of event " + event.id().str() +
                      " takes more than 4 GiB");
    }
    target.insert(target.end(), lane[c].begin(), lane[c].end());
    record->sizes.push_back(static_cast<UInt_t>(lane[c].size()));
  }
  if (level_ == FrameLevel::Event) codec::compress(compression_, joined.data(), joined.size(), record->blob);
  record->events.push_back(record->blob.size());
  add(record);
}

void EventsOutput::add(std::shared_ptr<Batch> const& record) const {
  serial_->push([this, record] {
    // A record is a batch of one: the first of a batch is taken as it is, the others copied in.
    if (open_->size() == 0) {
      open_ = record;
    } else {
      open_->append(*record);
    }
    if (open_->size() < batchSize_) return;
    auto full = std::exchange(open_, std::make_shared<Batch>());
    group_->run([this, full] { finishBatch(full); });
  });
}

void EventsOutput::finishBatch(std::shared_ptr<Batch> batch) const {
  try {
    if (framesBatches(level_)) {
      std::vector<char> frame;
      codec::compress(compression_, batch->blob.data(), batch->blob.size(), frame);
      batch->blob.swap(frame);
    }
  } catch (...) {
    keepError();
    return;
  }
  serial_->push([this, batch] { fill(*batch); });
}

void EventsOutput::fill(Batch& batch) const {
  if (failed_.load(std::memory_order_acquire)) return;
  try {
    std::swap(*branches_, batch);
    takeRootMessage();
    auto const filled = tree_->Fill();
    std::swap(*branches_, batch);
    if (filled <= 0 || rootFile_->TestBit(TFile::kWriteError)) {
      file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
    }
    ++entries_;
    written_.fetch_add(batch.size(), std::memory_order_relaxed);
    bytes_.fetch_add(batch.blob.size(), std::memory_order_relaxed);
  } catch (...) {
    keepError();
  }
}

void EventsOutput::keepError() const {
  std::lock_guard lock(errorMutex_);
  if (!error_) error_ = std::current_exception();
  failed_.store(true, std::memory_order_release);
}

void EventsOutput::rethrowError() const {
  if (!failed_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(errorMutex_);
  std::rethrow_exception(error_);
}

void EventsOutput::endJob() {
  group_->wait();
  rethrowError();
  if (open_->size() > 0) {
    finishBatch(std::exchange(open_, std::make_shared<Batch>()));
    group_->wait();
    rethrowError();
  }
  rootFile_->cd();
  takeRootMessage();
  bool const written = rootFile_->Write() > 0;
  auto const message = takeRootMessage();
  if (!close() || !written) file_.fail(writeFailure(file_.temporaryPath(), message));
  file_.commit(entries_, treeEntries(kBlobTree));
}

void EventsOutput::abandon() {
  if (group_) group_->wait();
  close();
  file_.discard();
}

bool EventsOutput::close() {
  bool intact = true;
  if (rootFile_) {
    rootFile_->Close();
    intact = !rootFile_->TestBit(TFile::kWriteError);
  }
  rootFile_.reset();
  tree_ = nullptr;
  return intact;
}

void EventsOutput::mergeParts(std::vector<std::string> const& parts) {
  file_.mergeParts(parts, kSmallBranchCompression, treeEntries(kBlobTree));
}

void EventsOutput::discardParts(std::vector<std::string> const& parts) { file_.discardParts(parts); }

std::string EventsOutput::details() const {
  auto details = nlohmann::json::parse(fileDetails(file_, written_.load()));
  details["serialization"] = nameOf(serialization_);
  details["compression"] = codec::nameOf(compression_.algorithm);
  details["level"] = compression_.level;
  details["compress"] = nameOf(level_);
  details["entries"] = entries_;
  details["blob_bytes"] = bytes_.load();
  return details.dump();
}

namespace {
RegisterOutput<EventsOutput> const registration(
    "root-events",
    "each event's products serialised by the framework into one blob of a TTree entry: file=PATH, "
    "serialization=root|unrolled, compression=none|lz4|zstd, level=, compress=product|event|batch|both, "
    "batch=EVENTS per entry, keep=GLOB");
}

}  // namespace lanes::rootio
