#include "pds/PdsOutput.h"

#include "lanes/core/PluginRegistry.h"
#include "root/BlobReader.h"

namespace lanes::pds {

PdsOutput::PdsOutput(std::string label, Options const& options)
    : BlobOutput(std::move(label), "pds", "records", options) {}

PdsOutput::~PdsOutput() { blobs_.wait(); }

void PdsOutput::beginJob(JobContext const& context) {
  beginBlobs(context, [this](rootio::BlobBatch& batch) { append(batch); });
  Header header{rootio::nameOf(blobs_.serialization()), codec::nameOf(blobs_.compression().algorithm),
                rootio::nameOf(blobs_.level()), {}, records_.productsOf(Level::Lumi), records_.productsOf(Level::Run)};
  for (auto const& column : blobs_.serialized().columns) {
    header.products.emplace_back(column.label, rootio::storedTypeName(column.type));
  }
  file_.begin(context.part);
  writer_ = std::make_unique<PdsWriter>(file_);
  writer_->write(encodeHeader(header));
}

void PdsOutput::append(rootio::BlobBatch const& batch) {
  record_.clear();
  encodeRecord(batch, record_);
  writer_->write(record_);
}

void PdsOutput::endJob() {
  blobs_.finish();
  record_.clear();
  encodeBlockRecords(records_.stored(), record_);
  writer_->write(record_);
  std::exchange(writer_, nullptr)->close();
  file_.commit(blobs_.written(), eventsIn);
}

void PdsOutput::mergeParts(std::vector<std::string> const& parts) {
  file_.mergeParts(
      parts, eventsIn, [this](std::vector<std::string> const& files) { mergeFiles(files, file_); },
      [this](std::vector<std::string> const& files) { replaceBlockRecords(file_, mergedRecords(files, recordsIn)); });
}

namespace {
RegisterOutput<PdsOutput> const registration(
    "pds",
    "a packed data stream: a plain binary file of checksummed records, each a batch of events serialised and "
    "compressed by the framework: file=PATH, serialization=root|unrolled, compression=none|lz4|zstd, level=, "
    "compress=product|event|batch|both, batch=EVENTS per record, keep=GLOB");
}

}  // namespace lanes::pds
