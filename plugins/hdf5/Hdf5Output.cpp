#include "hdf5/Hdf5Output.h"

#include <unistd.h>

#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "hdf5/Hdf5Merge.h"
#include "hdf5/Hdf5Records.h"
#ifdef H5_HAVE_PARALLEL
#include "hdf5/ParallelHdf5.h"
#endif
#include "lanes/core/Event.h"
#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/TemporaryName.h"
#include "root/ProductStreaming.h"
#include "root/RootSupport.h"

namespace lanes::hdf5 {

struct Hdf5Output::Product {
  rootio::Column column;
  char const* kind = kBlob;                     // or kScalar, kVector
  rootio::Fundamental const* number = nullptr;  // a scalar's or a vector's element
  std::size_t (*appendArray)(void const*, std::vector<unsigned char>&) = nullptr;
  std::unique_ptr<rootio::ProductSerializer> serializer;  // a blob's
  hid_t group = -1;
  std::size_t values = 0, offsets = 0;  // the writer's datasets, made by the first flush()
  std::vector<unsigned char> pendingValues;
  std::vector<std::uint64_t> pendingOffsets;
  std::uint64_t total = 0;  // values so far, the pending ones included (compress=batch: before compression)
  bool framed = false;      // a blob, compress=batch: a frame per batch, which holds the blobs' sizes
  std::size_t frames = 0;   // then the writer's dataset of frame ends
  std::uint64_t framesEnd = 0;
};

namespace {

// compression=, level= and compress=, which only layout=blobs takes, and
// never with HDF5's own deflate= (it would compress the frames again).
codec::Compression blobCompression(PluginOptions const& checked, std::string const& layout, unsigned deflate,
                                   std::string const& compress) {
  auto const& options = checked.raw();
  auto const name = checked.choice("compression", "none", {"none", "lz4", "zstd"});
  if (compress != kCompressProduct && compress != kCompressBatch) {
    checked.fail("compress", "cannot be " + compress + ": each product is a dataset of its own, so no frame holds a "
                             "whole event (compress=product|batch)");
  }
  if ((name != "none" || options.has("level") || options.has("compress")) && layout != kBlobs) {
    checked.fail("compression", "(and level=, compress=) applies to layout=blobs only: columns are typed datasets, "
                                "which deflate= compresses");
  }
  if (name != "none" && deflate > 0) {
    checked.fail("deflate", "cannot be given with compression=" + name + ": the blobs would be compressed twice");
  }
  return checked.forOption("compression", [&] {
    return codec::parseCompression(name, static_cast<int>(options.getInt("level", 0)), options.has("level"));
  });
}

// parallel=true: the job's file (file=), which the ranks of an MPI job write together; else "".
std::string togetherPath(PluginOptions const& checked) {
  if (!checked.raw().getBool("parallel", false)) return {};
#ifdef H5_HAVE_PARALLEL
  if (!mpiRunning()) {
    checked.fail("parallel", "writes one file together with the other ranks of an MPI job: run the job with "
                             "mpirun (or --mpi)");
  }
  return checked.required("file");
#else
  checked.fail("parallel", "needs parallel HDF5, and this lanes was built without MPI (serial HDF5)");
#endif
}

}  // namespace

Hdf5Output::Hdf5Output(std::string label, Options const& options)
    : Hdf5Output(std::move(label), options, PluginOptions(options, "hdf5")) {}

Hdf5Output::Hdf5Output(std::string label, Options const& options, PluginOptions const& checked)
    : Output(std::move(label)),
      file_(checked.forOption("file", [&] { return rootio::OutputFile(checked.required("file")); })),
      layout_(checked.choice("layout", kColumns, {kColumns, kBlobs})),
      serialization_(rootio::parseSerialization(checked.choice("serialization", "root", {"root", "unrolled"}))),
      compress_(checked.choice("compress", kCompressBatch, {"product", "event", "batch", "both"})),
      batch_(checked.positive("batch", 1000)),
      settings_{checked.positive("chunk", 1 << 20, std::uint64_t{1} << 32), static_cast<unsigned>(checked.count("deflate", 0, 9))} {
  compression_ = blobCompression(checked, layout_, settings_.deflate, compress_);
  together_ = togetherPath(checked);
  rootio::initialiseRoot();
  keep(options.getAll("keep"));
}

Hdf5Output::~Hdf5Output() { close(); }

void Hdf5Output::beginJob(JobContext const& context) {
  records_.begin(context, serialization_, "hdf5");
  for (auto const level : {Level::Lumi, Level::Run}) requireGroupNames(records_.productsOf(level), level);
  products_.clear();
  for (auto& column : rootio::columnsOf(*this, context.registry)) {
    Product product;
    product.column = std::move(column);
    product.kind = kBlob;
    auto const type = context.registry[product.column.index].description.type;
    if (product.column.type.fundamental) {
      product.number = product.column.type.fundamental;
      if (layout_ == kColumns) product.kind = kScalar;
    } else if (layout_ == kColumns && (product.number = rootio::fundamentalByArray(type))) {
      product.kind = kVector;
    }
    if (product.kind == kBlob) {
      product.serializer = rootio::makeSerializer(serialization_, product.column.type, product.column.label);
    }
    product.framed = product.kind == kBlob && encoding().framesBatches();
    products_.push_back(std::move(product));
  }
  file_.begin(context.part);
  written_ = 0;
  batchEnd_ = 0;
  ids_.clear();
  datasetsMade_ = false;
  productOf_.assign(context.registry.size(), -1);
  for (std::size_t i = 0; i < products_.size(); ++i) productOf_[products_[i].column.index] = static_cast<int>(i);
  staged_ = std::vector<Staged>(std::size_t{context.lanes} * products_.size());
  writing([&] {
    writer_ = std::make_unique<Hdf5Writer>(file_.temporaryPath(), layout_, settings_);
    writeBlobEncoding(writer_->root(), encoding());
    for (auto& product : products_) {
      product.group = writer_->addProduct(product.column.label, product.kind, product.column.type.name);
      if (product.kind == kVector) product.appendArray = numberOf(*product.number).appendArray;
    }
  });
}

void Hdf5Output::makeDatasets() {
  idsDataset_ = writer_->addDataset(writer_->root(), kEventIds, eventIdType().get(), ids_.size());
  if (encoding().framesBatches()) {
    batchEndsDataset_ = writer_->addDataset(writer_->root(), kBatchEnds, H5T_NATIVE_UINT64, 1);
  }
  for (auto& product : products_) {
    auto const type = product.kind == kBlob ? H5T_NATIVE_UINT8 : numberOf(*product.number).memoryType;
    auto const element = product.kind == kBlob ? 1 : product.number->size;
    product.values = writer_->addDataset(product.group, kValues, type, product.pendingValues.size() / element);
    if (product.framed) {
      product.frames = writer_->addDataset(product.group, kFrames, H5T_NATIVE_UINT64, 1);
    } else if (product.kind != kScalar) {
      product.offsets = writer_->addDataset(product.group, kOffsets, H5T_NATIVE_UINT64, ids_.size());
    }
  }
}

void Hdf5Output::write(Event const& event) {
  // Events in flight when writing failed still arrive.
  if (!writer_) throw Exception("cannot write '" + file_.path() + "': " + file_.error());
  auto const& id = event.id();
  ids_.push_back({id.run, id.luminosityBlock, id.event});
  for (std::size_t i = 0; i < products_.size(); ++i) add(event, products_[i], staged_[event.lane() * products_.size() + i]);
  ++written_;
  records_.written(event);
  if (ids_.size() >= batch_) flush();
}

BlobEncoding Hdf5Output::encoding() const {
  bool const compressed = compression_.algorithm != codec::Algorithm::None;
  return {rootio::nameOf(serialization_), codec::nameOf(compression_.algorithm), compressed ? compress_ : ""};
}

void Hdf5Output::appendBlob(Product const& product, void const* object, std::vector<char>& out) const {
  if (compression_.algorithm == codec::Algorithm::None || compress_ == kCompressBatch) {
    product.serializer->write(object, out);
    return;
  }
  thread_local std::vector<char> raw;
  raw.clear();
  product.serializer->write(object, raw);
  codec::compress(compression_, raw.data(), raw.size(), out);
}

void Hdf5Output::productReady(Event const& event, ProductIndex index) const {
  auto const p = productOf_[index];
  if (p < 0 || products_[p].kind != kBlob) return;
  auto const& product = products_[p];
  auto& staged = staged_[event.lane() * products_.size() + p];
  staged.bytes.clear();
  appendBlob(product, rootio::rootObjectOf(event.slot(index), product.column.type), staged.bytes);
  staged.id = event.id();
  staged.ready = true;
}

void Hdf5Output::add(Event const& event, Product& product, Staged& staged) {
  auto* const object = rootio::rootObjectOf(event.slot(product.column.index), product.column.type);
  auto& values = product.pendingValues;
  if (product.kind == kScalar) {
    auto const* bytes = static_cast<unsigned char const*>(object);
    values.insert(values.end(), bytes, bytes + product.number->size);
    return;
  }
  if (product.kind == kVector) {
    product.total += product.appendArray(object, values);
  } else if (staged.ready && staged.id == event.id()) {
    values.insert(values.end(), staged.bytes.begin(), staged.bytes.end());
    product.total += staged.bytes.size();
  } else {  // productReady() did not see it (a product read only now)
    thread_local std::vector<char> blob;
    blob.clear();
    appendBlob(product, object, blob);
    values.insert(values.end(), blob.begin(), blob.end());
    product.total += blob.size();
  }
  staged.ready = false;
  product.pendingOffsets.push_back(product.total);
}

namespace {

// The bytes a compress=batch frame holds: each blob's size (uint32,
// little-endian; `ends` are the blobs' ends from `base` on), then the blobs.
void batchBytes(std::vector<std::uint64_t> const& ends, std::uint64_t base, std::vector<unsigned char> const& blobs,
                std::string const& label, std::vector<char>& raw) {
  raw.resize(4 * ends.size());
  for (std::size_t i = 0; i < ends.size(); ++i) {
    auto const size = ends[i] - (i == 0 ? base : ends[i - 1]);
    if (size > std::numeric_limits<std::uint32_t>::max()) {
      throw Exception("hdf5: a blob of product '" + label + "' takes more than 4 GiB");
    }
    for (int b = 0; b < 4; ++b) raw[4 * i + b] = static_cast<char>((size >> (8 * b)) & 0xff);
  }
  raw.insert(raw.end(), blobs.begin(), blobs.end());
}

}  // namespace

void Hdf5Output::compressBatch() {
  // Isolated: this thread, waiting for the products, takes no other event's work (which could write here).
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(std::size_t{0}, products_.size(), [&](std::size_t i) {
      auto& product = products_[i];
      if (!product.framed) return;
      thread_local std::vector<char> raw, frame;
      auto& values = product.pendingValues;
      batchBytes(product.pendingOffsets, product.total - values.size(), values, product.column.label, raw);
      frame.clear();
      codec::compress(compression_, raw.data(), raw.size(), frame);
      values.assign(frame.begin(), frame.end());
      product.pendingOffsets.clear();  // the frame holds them
      product.framesEnd += frame.size();
    });
  });
}

void Hdf5Output::flush() {
  bool const batches = encoding().framesBatches() && !ids_.empty();
  if (batches) compressBatch();
  writing([&] {
    if (!datasetsMade_) makeDatasets();
    datasetsMade_ = true;
    writer_->append(idsDataset_, ids_.data(), ids_.size());
    if (batches) {
      batchEnd_ += ids_.size();
      writer_->append(batchEndsDataset_, &batchEnd_, 1);
    }
    for (auto& product : products_) {
      auto const element = product.kind == kBlob ? 1 : product.number->size;
      writer_->append(product.values, product.pendingValues.data(), product.pendingValues.size() / element);
      if (product.framed) {
        if (batches) writer_->append(product.frames, &product.framesEnd, 1);
      } else if (product.kind != kScalar) {
        writer_->append(product.offsets, product.pendingOffsets.data(), product.pendingOffsets.size());
      }
      product.pendingValues.clear();
      product.pendingOffsets.clear();
    }
  });
  ids_.clear();
}

template <typename Write>
void Hdf5Output::writing(Write write) {
  try {
    auto const lock = lockLibrary();
    write();
  } catch (Exception const& error) {
    close();
    file_.fail(rootio::writeFailure(file_.temporaryPath(), error.message()));
  }
}

void Hdf5Output::endJob() {
  flush();
  writing([&] {
    writeRecords(*writer_, records_.stored());
    writer_->close();
  });
  close();
  file_.commit(written_, &eventsIn);
}

void Hdf5Output::close() {
  auto const lock = lockLibrary();
  writer_.reset();
}

void Hdf5Output::abandon() {
  close();
  file_.discard();
}

void Hdf5Output::mergeParts(std::vector<std::string> const& parts) {
  auto const merge = [&](std::vector<std::string> const& files) {
    // parallel=true: the ranks wrote it there together (writeTogether()); commit() checks its events.
    if (!together_.empty()) return;
    try {
      mergeFiles(files, file_.temporaryPath(), settings_);
    } catch (Exception const& error) {
      file_.fail(rootio::writeFailure(file_.temporaryPath(), error.message()));
    }
  };
  // The records of every part, merged, replace what the merge (or the first part) left.
  auto const mergeRecords = [&](std::vector<std::string> const& files) {
    auto const records = rootio::mergedRecords(*this, serialization_, "hdf5", files, &recordsIn);
    writing([&] {
      Hdf5Writer merged(file_.temporaryPath(), settings_);
      writeRecords(merged, records);
      merged.close();
    });
  };
  file_.mergeParts(parts, &eventsIn, merge, mergeRecords);
}

void Hdf5Output::discardParts(std::vector<std::string> const& parts) { file_.discardParts(parts); }

void Hdf5Output::writeTogether(ProcessGroup const& group) {
#ifdef H5_HAVE_PARALLEL
  if (together_.empty()) return;
  // Under rank 0's temporary name, which its mergeParts() takes.
  auto const path = fromRankZero(group, partialPath(together_, ::getpid()));
  try {
    hdf5::writeTogether(group, file_.path(), path, settings_);
  } catch (Exception const& error) {
    throw Exception("cannot write '" + together_ + "' together: " + error.message());
  }
#endif
}

std::string Hdf5Output::details() const {
  auto details = nlohmann::json::parse(rootio::fileDetails(file_, written_));
  details["layout"] = layout_;
  details["serialization"] = rootio::nameOf(serialization_);
  details["compression"] = codec::nameOf(compression_.algorithm);
  details["level"] = compression_.level;
  details["compress"] = encoding().compress;
  details["parallel"] = !together_.empty();
  return details.dump();
}

namespace {
RegisterOutput<Hdf5Output> const registration(
    "hdf5",
    "writes an HDF5 file (a one module): numbers as typed datasets h5py reads (layout=columns) or every product as "
    "serialised bytes (layout=blobs): file=PATH, layout=columns|blobs, batch=N, chunk=BYTES, deflate=0..9, "
    "serialization=root|unrolled, compression=none|lz4|zstd, level=, compress=product|batch (blobs only), keep=GLOB, parallel=true (MPI ranks write one file together)");
}

}  // namespace lanes::hdf5
