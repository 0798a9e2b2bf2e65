#pragma once
// What the blob outputs (root-events, pds) share: their options, their file
// under a temporary name, the BlobBuilder that serialises, compresses and
// batches the events, and the records of runs and lumis (BlockRecords.h); a
// subclass opens its file, fills it with each batch the builder hands over,
// writes the records, and commits or merges it.

#include <string>
#include <vector>

#include "lanes/core/ModuleTypes.h"
#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "root/BlobBuilder.h"
#include "root/BlockRecords.h"
#include "root/OutputSupport.h"

namespace lanes::rootio {

// Thread-safe: productReady() and write() build the blobs (BlobBuilder's
// contract), whose sink the subclass gives in beginJob; the builder runs it
// on its serial queue, so the file is written by one task at a time.
// writeLumi() and writeRun() keep the records (OutputRecords' contract),
// which the subclass writes at the end. beginJob, endJob, abandon and the
// part merge run alone on the job's thread.
class BlobOutput : public global::Output {
 public:
  bool wantsProductReady() const override { return true; }
  void productReady(Event const& event, ProductIndex product) const override { blobs_.productReady(event, product); }
  void write(Event const& event) const override;
  void writeLumi(Lumi const& lumi) const override { records_.writeLumi(lumi); }
  void writeRun(Run const& run) const override { records_.writeRun(run); }
  // Waits for the builder's tasks, closes the file (closeFile()) and removes it.
  void abandon() override;
  void discardParts(std::vector<std::string> const& parts) override { file_.discardParts(parts); }
  std::string details() const override;

 protected:
  // Options: file=PATH (required), BlobBuilder's (serialization=, compression=,
  // level=, compress=, batch=), keep=GLOB. `format` is the plugin's name;
  // `batches` names the count of batches written in the report's details.
  BlobOutput(std::string label, std::string format, std::string batches, Options const& options);

  // Closes the file without committing it (a failed job).
  virtual void closeFile() = 0;

  // In beginJob: the builder (handing each batch to `sink`) and the records.
  void beginBlobs(JobContext const& context, BlobBuilder::Sink sink);
  // The parent of a multi-process job: the records of the parts `files`,
  // each read by `read`, merged (throws lanes::Exception naming a part).
  BlockRecords mergedRecords(std::vector<std::string> const& files, ReadRecords const& read) const;

  OutputFile file_;  // fail() from the builder's serial queue
  BlobBuilder blobs_;
  mutable OutputRecords records_{*this};

 private:
  BlobOutput(std::string label, std::string format, std::string batches, Options const& options,
             PluginOptions const& checked);

  std::string format_;
  std::string batches_;
};

}  // namespace lanes::rootio
