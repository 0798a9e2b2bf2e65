#pragma once
// What the calling thread reads now: a note a source sets around each read
// of a file (and around opening it), so that a fatal signal raised inside a
// reading library (a damaged file that makes it follow a bad pointer) can
// still be reported with the file, the dataset, the item and the entry that
// were being read. The note holds pointers only: setting it costs a few
// stores, and a signal handler reads it without allocating or locking. The
// command's handler reads it (cli/FatalSignals.h); core only keeps it.

#include <cstddef>
#include <cstdint>

namespace lanes {

// Names that the reader owns and that outlive the ReadingScope noting them;
// the kinds are string literals.
struct ReadingNote {
  char const* file = nullptr;         // the file's path; nullptr: the thread reads nothing
  char const* datasetKind = nullptr;  // "TTree", "RNTuple"; nullptr: the file's own records
  char const* dataset = nullptr;      // the dataset's name
  char const* itemKind = nullptr;     // "branch", "field"; nullptr: the dataset's metadata
  char const* item = nullptr;         // the item's name
  std::int64_t entry = -1;            // the entry being read; -1: none
};

namespace detail {
// Per thread, constant-initialised: a static TLS slot of the executable,
// which a signal handler may read.
inline thread_local ReadingNote readingNow;
}  // namespace detail

// The calling thread's note (all null when it reads nothing). Async-signal-safe.
inline ReadingNote const& readingNow() noexcept { return detail::readingNow; }

// Appends what fits of "while reading branch 'x' of entry 3 of TTree
// 'Events' in 'f.root'" ("while opening 'f.root'" when the note names only
// the file) to the NUL-terminated text in `buffer`, of `size` bytes; nothing
// for an empty note. Async-signal-safe: no allocation, no lock.
void appendReading(ReadingNote const& note, char* buffer, std::size_t size) noexcept;

// Lane-confined: notes `note` as what the calling thread reads, until it is
// destroyed on the same thread, which restores the note it replaced (reads
// nest: a file is opened inside the read that reaches it).
class ReadingScope {
 public:
  explicit ReadingScope(ReadingNote const& note) noexcept : previous_(detail::readingNow) { detail::readingNow = note; }
  ~ReadingScope() { detail::readingNow = previous_; }
  ReadingScope(ReadingScope const&) = delete;
  ReadingScope& operator=(ReadingScope const&) = delete;

  // The entry now read within the same item.
  void entry(std::int64_t entry) noexcept { detail::readingNow.entry = entry; }

 private:
  ReadingNote const previous_;
};

}  // namespace lanes
