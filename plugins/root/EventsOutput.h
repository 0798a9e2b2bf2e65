#pragma once
// The `root-events` output: each event's kept products serialised by the
// framework (serialization=root|unrolled) into one byte blob, compressed by
// the framework (codec/Codec.h) per product, per event and/or per batch of
// `batch=` events, one TTree entry per batch (layout: EventBlobs.h).

#include <memory>
#include <string>
#include <vector>

#include "lanes/core/Options.h"
#include "root/BlobOutput.h"

class TFile;
class TTree;

namespace lanes::rootio {

// BlobOutput's contract: the builder hands each batch to fill(), which
// fills the tree.
class EventsOutput : public BlobOutput {
 public:
  // Options: BlobOutput's; batch=N is events per entry.
  EventsOutput(std::string label, Options const& options);
  ~EventsOutput() override;

  void beginJob(JobContext const& context) override;
  void endJob() override;
  void mergeParts(std::vector<std::string> const& parts) override;

 private:
  void fill(BlobBatch& batch);
  // The merge of a multi-process job's parts: their records, merged, replace
  // the ones TFileMerger concatenated (or the first part's, which became the file).
  void replaceRecords(std::vector<std::string> const& parts);
  void writeProducts();
  void closeFile() override { close(); }
  bool close();

  std::unique_ptr<TFile> rootFile_;
  TTree* tree_ = nullptr;  // owned by rootFile_
  std::unique_ptr<BlobBatch> branches_;  // what the tree's branches point to
};

}  // namespace lanes::rootio
