#include "root/BlobOutput.h"

namespace lanes::rootio {

BlobOutput::BlobOutput(std::string label, std::string format, std::string batches, Options const& options)
    : BlobOutput(std::move(label), format, std::move(batches), options, PluginOptions(options, format)) {}

BlobOutput::BlobOutput(std::string label, std::string format, std::string batches, Options const& options,
                       PluginOptions const& checked)
    : Output(std::move(label)),
      file_(checked.forOption("file", [&] { return OutputFile(checked.required("file")); })),
      blobs_(format, options, checked),
      format_(std::move(format)),
      batches_(std::move(batches)) {
  initialiseRoot();
  keep(options.getAll("keep"));
}

void BlobOutput::write(Event const& event) const {
  blobs_.write(event);
  records_.written(event);
}

void BlobOutput::beginBlobs(JobContext const& context, BlobBuilder::Sink sink) {
  blobs_.begin(context, *this, std::move(sink));
  records_.begin(context, blobs_.serialization(), format_);
}

BlockRecords BlobOutput::mergedRecords(std::vector<std::string> const& files, ReadRecords const& read) const {
  return rootio::mergedRecords(*this, blobs_.serialization(), format_, files, read);
}

void BlobOutput::abandon() {
  blobs_.wait();
  closeFile();
  file_.discard();
}

std::string BlobOutput::details() const {
  auto details = nlohmann::json::parse(fileDetails(file_, blobs_.written()));
  details.update(blobs_.details());
  details[batches_] = blobs_.batches();
  return details.dump();
}

}  // namespace lanes::rootio
