#include "hdf5/Hdf5Output.h"

#include <TBufferFile.h>

#include <cstring>

#include "hdf5/Hdf5Merge.h"
#include "lanes/core/Event.h"
#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/ProductStreaming.h"

namespace lanes::hdf5 {

struct Hdf5Output::Product {
  rootio::Column column;
  char const* kind = kBlob;                     // or kScalar, kVector
  rootio::Fundamental const* number = nullptr;  // a scalar's or a vector's element
  std::size_t (*appendArray)(void const*, std::vector<unsigned char>&) = nullptr;
  hid_t group = -1;
  std::size_t values = 0, offsets = 0;  // the writer's datasets, made by the first flush()
  std::vector<unsigned char> pendingValues;
  std::vector<std::uint64_t> pendingOffsets;
  std::uint64_t total = 0;  // values so far, the pending ones included
};

Hdf5Output::Hdf5Output(std::string label, Options const& options)
    : Hdf5Output(std::move(label), options, PluginOptions(options, "hdf5")) {}

Hdf5Output::Hdf5Output(std::string label, Options const& options, PluginOptions const& checked)
    : Output(std::move(label)),
      file_(checked.forOption("file", [&] { return rootio::OutputFile(checked.required("file")); })),
      layout_(checked.choice("layout", kColumns, {kColumns, kBlobs})),
      batch_(checked.positive("batch", 1000)),
      settings_{checked.positive("chunk", 1 << 20, std::uint64_t{1} << 32), static_cast<unsigned>(checked.count("deflate", 0, 9))} {
  rootio::initialiseRoot();
  keep(options.getAll("keep"));
}

Hdf5Output::~Hdf5Output() { close(); }

void Hdf5Output::beginJob(JobContext const& context) {
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
    products_.push_back(std::move(product));
  }
  file_.begin(context.part);
  written_ = 0;
  ids_.clear();
  datasetsMade_ = false;
  productOf_.assign(context.registry.size(), -1);
  for (std::size_t i = 0; i < products_.size(); ++i) productOf_[products_[i].column.index] = static_cast<int>(i);
  staged_ = std::vector<Staged>(std::size_t{context.lanes} * products_.size());
  writing([&] {
    writer_ = std::make_unique<Hdf5Writer>(file_.temporaryPath(), layout_, settings_);
    for (auto& product : products_) {
      product.group = writer_->addProduct(product.column.label, product.kind, product.column.type.name);
      if (product.kind == kVector) product.appendArray = numberOf(*product.number).appendArray;
    }
  });
}

void Hdf5Output::makeDatasets() {
  idsDataset_ = writer_->addDataset(writer_->root(), kEventIds, eventIdType().get(), ids_.size());
  for (auto& product : products_) {
    auto const type = product.kind == kBlob ? H5T_NATIVE_UINT8 : numberOf(*product.number).memoryType;
    auto const element = product.kind == kBlob ? 1 : product.number->size;
    product.values = writer_->addDataset(product.group, kValues, type, product.pendingValues.size() / element);
    if (product.kind != kScalar) {
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
  if (ids_.size() >= batch_) flush();
}

namespace {

// The bytes of one product, in a buffer of this thread's (valid until its next call).
std::pair<unsigned char const*, std::size_t> serialised(void* object, rootio::RootType const& type) {
  thread_local TBufferFile buffer(TBuffer::kWrite);
  rootio::streamProduct(buffer, object, type);
  return {reinterpret_cast<unsigned char const*>(buffer.Buffer()), static_cast<std::size_t>(buffer.Length())};
}

}  // namespace

void Hdf5Output::productReady(Event const& event, ProductIndex index) const {
  auto const p = productOf_[index];
  if (p < 0 || products_[p].kind != kBlob) return;
  auto const& product = products_[p];
  auto& staged = staged_[event.lane() * products_.size() + p];
  auto const [bytes, size] = serialised(rootio::rootObjectOf(event.slot(index), product.column.type), product.column.type);
  staged.bytes.assign(bytes, bytes + size);
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
    auto const [bytes, size] = serialised(object, product.column.type);
    values.insert(values.end(), bytes, bytes + size);
    product.total += size;
  }
  staged.ready = false;
  product.pendingOffsets.push_back(product.total);
}

void Hdf5Output::flush() {
  writing([&] {
    if (!datasetsMade_) makeDatasets();
    datasetsMade_ = true;
    writer_->append(idsDataset_, ids_.data(), ids_.size());
    for (auto& product : products_) {
      auto const element = product.kind == kBlob ? 1 : product.number->size;
      writer_->append(product.values, product.pendingValues.data(), product.pendingValues.size() / element);
      if (product.kind != kScalar) {
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
  writing([&] { writer_->close(); });
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
  file_.mergeParts(parts, &eventsIn, [&](std::vector<std::string> const& files) {
    try {
      mergeFiles(files, file_.temporaryPath(), settings_);
    } catch (Exception const& error) {
      file_.fail(rootio::writeFailure(file_.temporaryPath(), error.message()));
    }
  });
}

void Hdf5Output::discardParts(std::vector<std::string> const& parts) { file_.discardParts(parts); }

std::string Hdf5Output::details() const { return rootio::fileDetails(file_, written_); }

namespace {
RegisterOutput<Hdf5Output> const registration(
    "hdf5",
    "writes an HDF5 file (a one module): numbers as typed datasets h5py reads (layout=columns) or every product as "
    "TBufferFile bytes (layout=blobs): file=PATH, layout=columns|blobs, batch=N, chunk=BYTES, deflate=0..9, keep=GLOB");
}

}  // namespace lanes::hdf5
