#include "root/BlobBuilder.h"

#include <limits>

#include "lanes/core/Event.h"
#include "lanes/core/Exception.h"

namespace lanes::rootio {

BlobBuilder::BlobBuilder(std::string format, Options const& options, PluginOptions const& checked)
    : format_(std::move(format)),
      serialization_(parseSerialization(checked.choice("serialization", "root", {"root", "unrolled"}))),
      compression_(checked.forOption("compression", [&] {
        return codec::parseCompression(checked.choice("compression", "lz4", {"none", "lz4", "zstd"}),
                                       static_cast<int>(options.getInt("level", 0)), options.has("level"));
      })),
      level_(parseFrameLevel(checked.choice("compress", "event", {"product", "event", "batch", "both"}))),
      batchSize_(checked.positive("batch", 1, 1u << 20)) {}

BlobBuilder::~BlobBuilder() { wait(); }

void BlobBuilder::begin(JobContext const& context, Module const& output, Sink sink) {
  serialized_ = serializedColumns(output, context.registry, serialization_);
  laneBytes_.assign(context.lanes, std::vector<std::vector<char>>(serialized_.columns.size()));
  sink_ = std::move(sink);
  written_ = bytes_ = batches_ = 0;
  failed_ = false;
  error_ = nullptr;
  open_ = std::make_shared<BlobBatch>();
  // A part's own group: a forked worker's part runs in an arena of its own.
  group_ = std::make_unique<tbb::task_group>();
  serial_ = std::make_unique<LimitedTaskQueue>(*group_, 1);
}

void BlobBuilder::productReady(Event const& event, ProductIndex product) const {
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

void BlobBuilder::write(Event const& event) const {
  rethrowError();
  auto record = std::make_shared<BlobBatch>();
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
      throw Exception(format_ + ": product '" + columns[c].label + "' is missing from event " + event.id().str() +
                      "; leave it out with keep=");
    }
    if (lane[c].size() > std::numeric_limits<UInt_t>::max()) {
      throw Exception(format_ + ": product '" + columns[c].label + "' of event " + event.id().str() +
                      " takes more than 4 GiB");
    }
    target.insert(target.end(), lane[c].begin(), lane[c].end());
    record->sizes.push_back(static_cast<UInt_t>(lane[c].size()));
  }
  if (level_ == FrameLevel::Event) codec::compress(compression_, joined.data(), joined.size(), record->blob);
  record->events.push_back(record->blob.size());
  add(record);
}

void BlobBuilder::add(std::shared_ptr<BlobBatch> const& record) const {
  serial_->push([this, record] {
    // A record is a batch of one: the first of a batch is taken as it is, the others copied in.
    if (open_->size() == 0) {
      open_ = record;
    } else {
      open_->append(*record);
    }
    if (open_->size() < batchSize_) return;
    auto full = std::exchange(open_, std::make_shared<BlobBatch>());
    group_->run([this, full] { finishBatch(full); });
  });
}

void BlobBuilder::finishBatch(std::shared_ptr<BlobBatch> batch) const {
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
  serial_->push([this, batch] { hand(*batch); });
}

void BlobBuilder::hand(BlobBatch& batch) const {
  if (failed_.load(std::memory_order_acquire)) return;
  try {
    sink_(batch);
    batches_.fetch_add(1, std::memory_order_relaxed);
    written_.fetch_add(batch.size(), std::memory_order_relaxed);
    bytes_.fetch_add(batch.blob.size(), std::memory_order_relaxed);
  } catch (...) {
    keepError();
  }
}

void BlobBuilder::keepError() const {
  std::lock_guard lock(errorMutex_);
  if (!error_) error_ = std::current_exception();
  failed_.store(true, std::memory_order_release);
}

void BlobBuilder::rethrowError() const {
  if (!failed_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(errorMutex_);
  std::rethrow_exception(error_);
}

void BlobBuilder::finish() {
  group_->wait();
  rethrowError();
  if (open_->size() > 0) {
    finishBatch(std::exchange(open_, std::make_shared<BlobBatch>()));
    group_->wait();
    rethrowError();
  }
}

nlohmann::json BlobBuilder::details() const {
  return {{"serialization", nameOf(serialization_)},
          {"compression", codec::nameOf(compression_.algorithm)},
          {"level", compression_.level},
          {"compress", nameOf(level_)},
          {"blob_bytes", bytes()}};
}

void BlobBuilder::wait() {
  if (group_) group_->wait();
}

}  // namespace lanes::rootio
