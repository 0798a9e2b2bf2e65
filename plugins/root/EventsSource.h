#pragma once
// The `root-events` source: reads a file the `root-events` output wrote.
// One shared file handle reads each entry's bytes (serialised, as every
// shared source); opening the batch, event and product frames and
// deserialising each product run concurrently, in the lanes that read them.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lanes/core/Options.h"
#include "lanes/core/PluginOptions.h"
#include "lanes/core/Source.h"
#include "root/BlobReader.h"

class TBranch;
class TFile;
class TTree;

namespace lanes::rootio {

// Externally synchronised by the scheduler's serial source queue: next() and
// skip() read the file. read() may run concurrently with itself and with
// next() (concurrentReads()): it touches only its event's record, which
// next() made and frees only when the lane that held it asks for its next
// event, and the record's batch, whose frame is opened once (std::call_once).
class EventsSource : public Source {
 public:
  // Options: file=PATH (required).
  explicit EventsSource(Options const& options);
  ~EventsSource() override;

  bool next(SourceEvent& event) override;
  bool skip(std::uint64_t count) override;
  void read(SourceEvent const& event, std::size_t product, ProductSlot& slot) override;
  bool concurrentReads() const override { return true; }
  std::string origin() const override { return path_; }

 private:
  EventsSource(Options const& options, PluginOptions const& checked);

  void open();
  void readProducts();
  // Moves to the next entry's ids; false past the last entry.
  bool nextEntry();
  std::shared_ptr<StoredBatch> loadBlob();
  [[noreturn]] void fail(std::uint64_t entry, std::string const& what) const;

  // The vectors the tree's branches read into (ROOT holds their addresses).
  struct Bound {
    std::vector<unsigned int>*run = nullptr, *luminosityBlock = nullptr, *sizes = nullptr;
    std::vector<unsigned long long>*event = nullptr, *events = nullptr;
    std::vector<char>* blob = nullptr;
    ~Bound();
  };
  // Points branch `name` at `address` (a new vector); throws if the branch is not a vector of T.
  template <typename T>
  TBranch* bind(char const* name, std::vector<T>*& address);

  std::string path_;
  std::unique_ptr<Bound> bound_;  // declared before file_: outlives the tree that points at its vectors
  std::unique_ptr<TFile> file_;
  TTree* tree_ = nullptr;  // owned by file_
  std::uint64_t entries_ = 0;
  std::vector<TBranch*> idBranches_;
  TBranch* blobBranch_ = nullptr;
  FrameLevel level_ = FrameLevel::Event;
  std::vector<StoredProduct> products_;

  // The cursor: the current entry's ids, and the next event in it.
  std::int64_t entry_ = -1;
  std::unique_ptr<StoredBatch> ids_;
  std::size_t index_ = 0;
  std::shared_ptr<StoredBatch> loaded_;  // the current entry's bytes, once an event of it is used
  std::unordered_map<StoredEvent const*, std::unique_ptr<StoredEvent>> records_;
};

}  // namespace lanes::rootio
