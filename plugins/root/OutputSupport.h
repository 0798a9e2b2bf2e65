#pragma once
// What every ROOT output shares: the file written under a temporary name and
// renamed on success, the columns (kept products) it writes, and its common
// options and report figures.

#include <atomic>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lanes/core/Module.h"
#include "lanes/core/PluginOptions.h"
#include "root/RootSupport.h"

namespace lanes::rootio {

// The names of the event id columns every output writes (NanoAOD's
// convention). A kept product with one of these names is not written: the id
// already is.
constexpr char const* kIdColumns[] = {"run", "luminosityBlock", "event"};

// The entries of an output's dataset (tree or RNTuple) in the file at a
// path, or nullopt if ROOT cannot read them there.
using EntryCounter = std::function<std::optional<std::uint64_t>(std::string const& path)>;

// Counts the entries of the TTree `tree`; nullopt in a file without it
// (every output writes its tree, if only an empty one).
EntryCounter treeEntries(std::string tree);

// An output's file: the output writes temporaryPath(); commit() renames it to
// path() once it reads back complete; discard() (or destruction before
// commit) removes it, so a failed or interrupted job never leaves a file that
// looks complete. A job killed outright leaves only the temporary name
// behind. Single-threaded.
//
// In a multi-process job every process writes its part (begin(part) before
// each part); the parent merges the parts into the requested file.
class OutputFile {
 public:
  // Throws lanes::Exception if the directory of `path` is missing or not writable.
  explicit OutputFile(std::string path);
  OutputFile(OutputFile const&) = delete;
  OutputFile& operator=(OutputFile const&) = delete;
  ~OutputFile() { discard(); }

  // Targets the file of `part` (see lanes::partPath; "" for the whole job's),
  // written under a temporary name of this process's.
  void begin(std::string const& part);

  // The parent of a multi-process job: merges the `parts` written (TTree
  // and RNTuple alike, by ROOT's TFileMerger, without recompressing) into
  // the requested file and removes them; or removes them, and what killed
  // processes left under temporary names. Throw lanes::Exception naming the file.
  // Parts with no entries are left out of the merge (ROOT's RNTuple merger
  // cannot take an RNTuple without clusters); the merged file must hold all
  // the parts' entries. A failed merge removes the parts too.
  // `compression` is the parts' (ROOT's integer setting). `records(files)`,
  // if given, writes the run and lumi records (kLumiRecords, kRunRecords)
  // of every part's file, merged, into temporaryPath(): TFileMerger, which
  // would put the parts' rows one after another, leaves them out.
  using Merge = std::function<void(std::vector<std::string> const& files)>;
  void mergeParts(std::vector<std::string> const& parts, int compression, EntryCounter const& entries,
                  Merge const& records = {});
  void discardParts(std::vector<std::string> const& parts);
  // The same for any format: `merge(files)` writes the parts' `files` (the
  // ones with entries) into temporaryPath(); if none has, the first part
  // becomes it.
  void mergeParts(std::vector<std::string> const& parts, EntryCounter const& entries, Merge const& merge,
                  Merge const& records = {});

  std::string const& path() const { return path_; }
  std::string const& temporaryPath() const { return temporary_; }
  // Renames the temporary to path() if `entries` reads `events` entries in
  // it (any number, if nullopt): a write that ROOT failed without saying so
  // leaves a file that reads short or not at all. Else fail().
  // The rename checks the job's claim on path() (lanes::commitFile()).
  void commit(std::optional<std::uint64_t> events, EntryCounter const& entries);
  void discard();
  bool committed() const { return committed_; }
  // Whether commit() replaced a file (an earlier job's) at path().
  bool replaced() const { return replaced_; }

  // Removes the temporary, keeps `cause` for the report (error()) and throws
  // lanes::Exception "cannot write PATH: CAUSE".
  [[noreturn]] void fail(std::string const& cause);
  std::string const& error() const { return error_; }

 private:
  void mergeInto(std::vector<std::string> const& parts, EntryCounter const& entries, Merge const& merge,
                 Merge const& records);

  std::string requested_;  // the job's file; path_ is the current part's
  std::string path_;
  std::string temporary_;
  std::string error_;
  bool done_ = false;
  bool committed_ = false;
  bool replaced_ = false;
};

// Why writing the file at `path` failed: the system's reason if the file
// cannot grow now (a full disk: "No space left on device"; a file-size
// limit: "File too large"; a vanished directory), else the first line of
// `rootMessage`, else that it is incomplete. ROOT often reports a failed
// write without its errno, or not at all. The file may grow (or be created):
// call it only for a file about to be removed (fail()).
std::string writeFailure(std::string const& path, std::string const& rootMessage);

// One kept product an output writes.
struct Column {
  std::string label;
  ProductIndex index;
  RootType type;
};

// The products `output` consumes (its keep= selection), as ROOT types, in
// the job's product order; throws lanes::Exception naming a product ROOT cannot store.
std::vector<Column> columnsOf(Module const& output, ProductRegistry const& registry);

// Compression from an output's options: compression=zlib|lz4|zstd|lzma
// (default `defaultAlgorithm`) and level=0..9 (default 4 for lz4, ROOT's
// setting for analysis, 404; else 5); ROOT's integer setting.
int compressionOption(PluginOptions const& options, char const* defaultAlgorithm);

// For the report: {"file", "committed", "events_written", "bytes"}, with
// {"replaced": true} if it replaced a file, and {"failed": true, "error"}
// if writing the file failed; a file that was not committed holds no events.
std::string fileDetails(OutputFile const& file, std::uint64_t events);

}  // namespace lanes::rootio
