#pragma once
// What the two TTree outputs (`root`, `parallel-root`) share: their output
// file, its compression, its run and lumi records (the LuminosityBlocks and
// Runs trees beside Events, RecordFiles.h), and the parent's side of a
// multi-process job, which merges the workers' parts, or receives their
// batches as the shared writer.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lanes/core/PluginOptions.h"
#include "root/TreeRecords.h"
#include "root/OutputSupport.h"
#include "root/RecordFiles.h"
#include "root/SharedWriter.h"

namespace lanes::rootio {

// Base is one::Output or limited::Output. The hooks below run on the
// parent's thread only, as the OutputModule hooks they implement do.
template <typename Base>
class TreeFileOutput : public Base {
 public:
  // The parts' run and lumi records are merged by (run, lumi) into the trees
  // of the merged file.
  void mergeParts(std::vector<std::string> const& parts) override {
    file_.mergeParts(parts, compression_, treeEntries(treeName_), [this](std::vector<std::string> const& files) {
      auto& records = records_.begin();
      readRecordsOf(files, records, false);
      writeRecordsInto(file_.temporaryPath(), records, false, compression_);
    });
  }
  void discardParts(std::vector<std::string> const& parts) override { file_.discardParts(parts); }
  bool sharesWriter() const override { return true; }
  void openShared() override {
    shared_ = std::make_unique<SharedFile>(file_, compression_, treeName_, records_.jobRecords());
  }
  void mergeBatch(void const* bytes, std::size_t size) override { shared_->merge(bytes, size); }
  void commitShared() override { shared_->commit(); }
  void abandonShared() override { shared_.reset(); }

 protected:
  // Reads the options file=PATH (required), tree=NAME and
  // compression=/level= (lz4, 4); the other arguments go to Base.
  template <typename... BaseArguments>
  explicit TreeFileOutput(PluginOptions const& checked, BaseArguments&&... arguments)
      : Base(std::forward<BaseArguments>(arguments)...),
        file_(checked.forOption("file", [&] { return OutputFile(checked.required("file")); })),
        treeName_(checked.raw().getString("tree", "Events")),
        compression_(compressionOption(checked, kDefaultCompression)) {}

  // lz4: ROOT checks the XXH64 that each lz4-compressed basket carries, where a zstd basket carries no checksum
  // and a damaged one can decode to other values (docs/faults.md); lz4 also writes and reads faster than zstd-5,
  // for 1.5 times the bytes.
  static constexpr char const* kDefaultCompression = "lz4";

  // The details of the file the shared writer committed, if this is the
  // shared writer and it did.
  std::optional<std::string> sharedDetails() const {
    if (!shared_ || !shared_->committed()) return std::nullopt;
    return shared_->details(fileDetails(file_, 0));
  }

  OutputFile file_;
  std::string const treeName_;
  int const compression_;
  RecordKeeper records_{*this};

 private:
  std::unique_ptr<SharedFile> shared_;  // the shared writer's (the parent's)
};

}  // namespace lanes::rootio
