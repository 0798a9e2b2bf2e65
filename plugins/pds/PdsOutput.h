#pragma once
// The `pds` (packed data stream) output: each event's kept products
// serialised and compressed by the framework as root-events does, one
// length-prefixed, checksummed record per batch of `batch=` events in a
// plain binary file (layout: PdsFormat.h).

#include <memory>
#include <string>
#include <vector>

#include "lanes/core/Options.h"
#include "pds/PdsFormat.h"
#include "root/BlobOutput.h"

namespace lanes::pds {

// BlobOutput's contract: the builder hands each batch to append(), which
// writes its record.
class PdsOutput : public rootio::BlobOutput {
 public:
  // Options: BlobOutput's; batch=N is events per record.
  PdsOutput(std::string label, Options const& options);
  ~PdsOutput() override;

  void beginJob(JobContext const& context) override;
  void endJob() override;
  void mergeParts(std::vector<std::string> const& parts) override;

 private:
  void append(rootio::BlobBatch const& batch);
  void closeFile() override { writer_.reset(); }

  std::unique_ptr<PdsWriter> writer_;
  std::vector<char> record_;  // append()'s
};

}  // namespace lanes::pds
