#pragma once
// The ROOT side of a shared-writer multi-process job (lanes::BatchSink): a
// worker's output fills its tree in an in-memory file and ships the file's
// bytes when a batch is full; the parent, the one writer, merges each batch
// into the output file as it arrives, incrementally with TFileMerger (as
// TBufferMerger merges the in-memory files of threads), so that nothing is
// left to merge at the end.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <TFileMerger.h>

#include "lanes/core/Module.h"
#include "root/TreeRecords.h"
#include "root/OutputSupport.h"

class TMemFile;

namespace lanes::rootio {

// A worker's batch: an in-memory file that holds the output's tree.
// Confined to one thread at a time (the output's call that fills it).
class BatchFile {
 public:
  // Named after the output's file `path` and compressed as it is, so that
  // the writer copies the baskets without recompressing them. Ships through
  // the context's JobContext::shipBatch, which must be set.
  BatchFile(std::string const& path, int compression, std::uint64_t flushEvents, JobContext const& context);
  ~BatchFile();
  BatchFile(BatchFile const&) = delete;
  BatchFile& operator=(BatchFile const&) = delete;

  TMemFile& file() { return *file_; }
  std::uint64_t events() const { return events_; }

  // Counts an event of `bytes` (uncompressed, as TTree::Fill() returns)
  // and says whether the batch is full: flushEvents events, or half the
  // largest batch in bytes (ROOT's keys and the streamer information must
  // fit in the rest, and compression rarely grows data).
  bool add(std::size_t bytes);

  // Writes the tree and the streamer information, ships the file's bytes,
  // and empties the file for the next batch (ResetAfterMerge(), as a
  // TBufferMergerFile after a merge). With no event it ships the empty
  // tree: an output that shipped nothing else does, at its end, so that the
  // writer's file holds the tree.
  // Returns the bytes shipped. Throws lanes::Exception naming the file and,
  // for a batch too large, the limit.
  std::size_t ship();

 private:
  std::string path_;
  std::unique_ptr<TMemFile> file_;
  std::function<void(void const*, std::size_t)> shipBatch_;
  std::size_t maxBytes_;
  std::uint64_t flushEvents_;
  std::uint64_t events_ = 0;
  std::size_t bytes_ = 0;
  std::vector<char> buffer_;
};

// The writer's: the one output file, into which each batch is merged as it
// arrives. Confined to the parent's thread. Destroyed uncommitted, it closes
// the file and leaves its OutputFile to remove it. A worker's last batch
// holds its run and lumi records (RecordFiles.h), which are merged into
// `records` by (run, lumi) and written as the file is committed.
class SharedFile {
 public:
  // Creates the file's temporary (file.begin("")) for the TTree `tree`;
  // throws lanes::Exception.
  SharedFile(OutputFile& file, int compression, std::string tree, std::unique_ptr<TreeRecords> records);
  ~SharedFile();
  SharedFile(SharedFile const&) = delete;
  SharedFile& operator=(SharedFile const&) = delete;

  // Merges a batch a BatchFile shipped; throws lanes::Exception naming the file.
  void merge(void const* bytes, std::size_t size);
  // Writes and closes the file, and renames it to its final name once it
  // reads back with every entry merged.
  void commit();
  bool committed() const { return committed_; }

  // Adds the batches and bytes received to an output's details (JSON text).
  std::string details(std::string const& fileDetails) const;

 private:
  OutputFile& file_;
  std::string tree_;
  std::unique_ptr<TreeRecords> records_;
  TFileMerger merger_{false, false};
  std::uint64_t batches_ = 0, bytes_ = 0, entries_ = 0;
  bool committed_ = false;
};

// A worker's details in a shared-writer job: the events and batches it
// shipped (it commits no file of its own).
std::string shippedDetails(OutputFile const& file, std::uint64_t events, std::uint64_t batches, std::uint64_t bytes);

}  // namespace lanes::rootio
