#include "root/BlobOutput.h"

namespace lanes::rootio {

BlobOutput::BlobOutput(std::string label, std::string format, std::string batches, Options const& options)
    : BlobOutput(std::move(label), format, std::move(batches), options, PluginOptions(options, format)) {}

BlobOutput::BlobOutput(std::string label, std::string format, std::string batches, Options const& options,
                       PluginOptions const& checked)
    : Output(std::move(label)),
      file_(checked.forOption("file", [&] { return OutputFile(checked.required("file")); })),
      blobs_(std::move(format), options, checked),
      batches_(std::move(batches)) {
  initialiseRoot();
  keep(options.getAll("keep"));
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
