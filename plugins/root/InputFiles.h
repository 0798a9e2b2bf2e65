#pragma once
// The input files of the ROOT sources and how they are opened: every way an
// input can be wrong becomes one line that names the file.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginOptions.h"

class TClass;
class TFile;

namespace lanes::rootio {

// The files named by `file=PATH` (repeatable) and `files=LIST` (a text file
// with one path per line; blank lines and '#' comments ignored; relative
// paths are relative to the list). Throws lanes::Exception if there are none
// or the list cannot be read.
std::vector<std::string> inputFiles(PluginOptions const& options);

// Whether a branch or field `name` is selected: it matches one of the
// `include` globs (or there are none) and none of the `exclude` globs.
bool selectedName(std::string const& name, std::vector<std::string> const& include,
                  std::vector<std::string> const& exclude);

// Throws lanes::Exception if one of the `key=` globs `patterns` matches none
// of `names` (the file's branches or fields, each a `what`): a mistyped
// pattern would silently select, or leave out, nothing.
void requireMatches(std::string const& key, std::vector<std::string> const& patterns,
                    std::vector<std::string> const& names, char const* what);

// Checks, without opening it with ROOT, that `path` is a readable file that
// starts as a ROOT file does. Throws lanes::Exception naming the file.
void requireReadable(std::string const& path);

// Whether a file lies on storage with no latency for a read-ahead cache to
// hide: a local disk's filesystem, or memory (ext2/3/4, XFS, Btrfs, F2FS,
// ZFS, tmpfs, ramfs, overlay, squashfs), by statfs()'s `type`. A network or
// FUSE filesystem (NFS, EOS and CVMFS through FUSE, AFS, Lustre, GPFS,
// CephFS), or one statfs() cannot tell, is not.
bool localStorageType(long type);
bool onLocalStorage(std::string const& path);

// Opens `path` for reading. Throws lanes::Exception naming the file if it is
// missing, unreadable, not a ROOT file, or truncated (a file ROOT had to
// recover was never closed properly: its last entries are lost).
std::unique_ptr<TFile> openInputFile(std::string const& path);

// The object `name` of class `cls` (or derived) in `file`, or nullptr if the
// file has no key of that name. Throws lanes::Exception naming the file if
// the key holds another class or cannot be read as one (corrupt metadata);
// `kind` names what cannot be read ("TTree").
void* readObject(TFile& file, std::string const& name, TClass* cls, char const* kind);
template <typename T>
T* readObject(TFile& file, std::string const& name, char const* kind) {
  return static_cast<T*>(readObject(file, name, T::Class(), kind));
}

// Each file's entry count, once a copy of a source has counted it. The copies
// of one source (one per lane) share one, so that a file is opened to be
// counted only once: a copy that opens a file holds opening(file) until it
// has learned the count, and a copy that needs only the count waits for it
// (awaitKnown) rather than open the file too (with one lane per file of a
// long list, each lane otherwise opened nearly every file). Thread-safe: a
// count is an atomic, every copy that counts a file finds the same number,
// and a file's lock is taken while its taker holds no other lock (an open
// may take one after it), so no two takers wait on each other.
class EntryCounts {
 public:
  explicit EntryCounts(std::size_t files)
      : entries_(new std::atomic<long long>[files]), opening_(new std::mutex[files]) {
    for (std::size_t i = 0; i < files; ++i) entries_[i].store(-1, std::memory_order_relaxed);
  }
  std::optional<std::uint64_t> known(std::size_t file) const {
    auto const entries = entries_[file].load(std::memory_order_relaxed);
    return entries < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(entries));
  }
  void learn(std::size_t file, std::uint64_t entries) {
    entries_[file].store(static_cast<long long>(entries), std::memory_order_relaxed);
  }
  // Held by a copy while it opens `file`, up to learn(file, ...). Once the
  // count is known, no copy waits for it: the lock returned is empty (owns
  // nothing), and copies open the file side by side (the lanes that start a
  // job each open the first file, counted before the job).
  std::unique_lock<std::mutex> opening(std::size_t file) {
    if (known(file)) return {};
    return std::unique_lock<std::mutex>(opening_[file]);
  }
  // known(file), once no copy is opening it.
  std::optional<std::uint64_t> awaitKnown(std::size_t file) {
    if (auto const entries = known(file)) return entries;
    opening(file);  // waits for an open under way, if any
    return known(file);
  }

 private:
  std::unique_ptr<std::atomic<long long>[]> entries_;
  std::unique_ptr<std::mutex[]> opening_;
};

// The input files that skip-bad-files=true left out of a job, each with the
// error that names it. Filled by a source's constructor; immutable after.
class SkippedFiles {
 public:
  void add(std::string path, std::string error) { files_.emplace_back(std::move(path), std::move(error)); }
  bool contains(std::string const& path) const {
    return std::any_of(files_.begin(), files_.end(), [&](auto const& file) { return file.first == path; });
  }

  // Source::details(): {"skipped_files": [{"file", "error"}]}, or "" if none.
  std::string details() const;

 private:
  std::vector<std::pair<std::string, std::string>> files_;
};

// The index of the first of `files` that `open(index)` opens without
// throwing lanes::Exception. Without `skipped` (skip-bad-files=false), that
// is file 0, or the exception; with it, the files that throw before are
// added to it, and if all do, the job cannot run.
template <typename Open>
std::size_t openFirstReadable(std::vector<std::string> const& files, SkippedFiles* skipped, Open open) {
  for (std::size_t index = 0;; ++index) {
    try {
      open(index);
      return index;
    } catch (Exception const& error) {
      if (!skipped) throw;
      if (index + 1 == files.size()) {
        throw Exception("none of the " + std::to_string(files.size()) + " input files can be read (the last: " +
                        error.message() + ")");
      }
      skipped->add(files[index], error.message());
    }
  }
}

// skip-bad-files=true: every file from `first` on is opened now, by
// `count(index)` (its entries, or lanes::Exception naming the file), so that
// a bad one is known, and reported once, before the job is split among
// processes. A bad file is added to `skipped` and counts 0 entries.
template <typename Count>
void countOrSkip(std::vector<std::string> const& files, std::size_t first, EntryCounts& counts,
                 SkippedFiles& skipped, Count count) {
  for (auto index = first; index < files.size(); ++index) {
    try {
      counts.learn(index, count(index));
    } catch (Exception const& error) {
      skipped.add(files[index], error.message());
      counts.learn(index, 0);
    }
  }
}

// Input files read as one sequence of entries, counted in order as they are
// reached. Confined to one copy of a source.
class FileSequence {
 public:
  explicit FileSequence(std::vector<std::string> files) : files_(std::move(files)) {}

  void addEntries(std::uint64_t entries) { firstEntry_.push_back(firstEntry_.back() + entries); }

  // Counts files until global entry `entry` is counted: each from `shared`
  // if another copy counted it, else as `count(index)` returns (opening the
  // file, which the copy then reads), telling `shared`. False if the files
  // end first.
  template <typename Count>
  bool reach(std::uint64_t entry, EntryCounts& shared, Count count) {
    while (entry >= entries()) {
      if (counted()) return false;
      auto const index = filesCounted();
      auto entries = shared.awaitKnown(index);
      if (!entries) {
        entries = count(index);
        shared.learn(index, *entries);
      }
      addEntries(*entries);
    }
    return true;
  }

  std::vector<std::string> const& files() const { return files_; }
  std::size_t filesCounted() const { return firstEntry_.size() - 1; }
  bool counted() const { return filesCounted() == files_.size(); }
  // The entries of the files counted so far.
  std::uint64_t entries() const { return firstEntry_.back(); }

  // Moves the cursor `next` past `count` entries without reading them (the
  // other processes of a multi-process job read them); false, at the end,
  // if there were fewer.
  bool skip(std::uint64_t& next, std::uint64_t count) const {
    bool const enough = count <= entries() - std::min(next, entries());
    next = enough ? next + count : entries();
    return enough;
  }

  // The file holding global entry `entry` (< entries()), and the entry within it.
  std::pair<std::size_t, std::uint64_t> locate(std::uint64_t entry) const {
    auto const file = static_cast<std::size_t>(std::upper_bound(firstEntry_.begin(), firstEntry_.end(), entry) -
                                               firstEntry_.begin() - 1);
    return {file, entry - firstEntry_[file]};
  }
  // The global entries [first, first + count) of counted file `file`.
  std::pair<std::uint64_t, std::uint64_t> entriesOf(std::size_t file) const {
    return {firstEntry_[file], firstEntry_[file + 1] - firstEntry_[file]};
  }

 private:
  std::vector<std::string> files_;
  std::vector<std::uint64_t> firstEntry_{0};
};

// The few most recently used files of a sequence kept open: events in flight
// may still read from the previous file after the source moved on, and a
// long list must not exhaust file handles. Confined to one source copy.
template <typename Opened>
class RecentlyOpened {
 public:
  // The opened file `index`, made by `open(index)` if it is not open.
  template <typename Open>
  Opened& get(std::size_t index, Open open) {
    for (auto it = opened_.begin(); it != opened_.end(); ++it) {
      if (it->first != index) continue;
      if (it != opened_.begin()) opened_.splice(opened_.begin(), opened_, it);
      return *opened_.front().second;
    }
    auto file = open(index);  // first: a throw leaves the list as it was
    if (opened_.size() == kKeepOpen) {
      if (last_.file == opened_.back().second.get()) last_ = {};
      opened_.pop_back();
    }
    opened_.emplace_front(index, std::move(file));
    return *opened_.front().second;
  }

  // The opened file holding global entry `entry` of `sequence` (counted),
  // its index, and the entry within it. Every product of an event, and most
  // events, lie in the file of the last call: that one is found at once.
  struct Located {
    Opened& file;
    std::size_t index;
    std::uint64_t entry;
  };
  template <typename Open>
  Located locate(FileSequence const& sequence, std::uint64_t entry, Open open) {
    if (entry - last_.first >= last_.entries) {
      auto const index = sequence.locate(entry).first;
      auto& file = get(index, open);
      auto const [first, entries] = sequence.entriesOf(index);
      last_ = {&file, index, first, entries};
    }
    return {*last_.file, last_.index, entry - last_.first};
  }

  // Closes them all: get() opens again what is asked for.
  void clear() {
    opened_.clear();
    last_ = {};
  }

 private:
  static constexpr std::size_t kKeepOpen = 4;
  std::list<std::pair<std::size_t, std::unique_ptr<Opened>>> opened_;  // most recent first
  struct Last {
    Opened* file = nullptr;
    std::size_t index = 0;
    std::uint64_t first = 0;    // its global entries [first, first + entries)
    std::uint64_t entries = 0;  // 0: none
  } last_;  // the file of the last locate()
};

}  // namespace lanes::rootio
