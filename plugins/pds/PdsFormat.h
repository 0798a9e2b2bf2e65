#pragma once
// The `pds` (packed data stream) file format, shared by its output, its
// source and the merge of a multi-process job's parts. All integers are
// little-endian (lanes builds only where the host is); a string is a u32
// length and its bytes; checksums are XXH3-64 (codec::checksum); a codec
// frame is codec/Codec.h's.
//
//   header   8 bytes magic "LANESPDS", u32 version (3; 1 and 2 still read:
//              version 1's frames are codec version 1's, and neither has
//              run and lumi records), u32 H, then H bytes:
//              string serialization (root|unrolled), string compression
//              (none|lz4|zstd), string compress (product|event|batch|both),
//              u32 P, P x (string label, string type); version 3: u32 PL,
//              PL x (string label, string type) of the lumi records'
//              products, then u32 PR, PR x the same of the run records'
//            then u64 checksum of those H bytes
//   record   u64 L, then L bytes (the body):
//              u32 N events (N >= 1); N x (u32 run, u32 luminosityBlock, u64
//              event); (N + 1) x u64 where each event begins and ends in the
//              batch's bytes; u64 S, then S bytes: a codec frame (lz4,
//              whatever compression= says) of N x P x u32, each product's
//              size in its event's bytes; the blob: the rest of the body
//            then u64 checksum of those L bytes
//   block    (version 3) a record of a run or a lumi (root/BlockRecords.h),
//   record     as a record but for its body: u32 0 (no events), u32 level
//              (1 lumi, 2 run), u32 run, u32 luminosityBlock (0 for a run),
//              u64 events written in it, u32 Q (PL or PR), Q x u32 each
//              product's bytes (4294967295: the record lacks it), then the
//              products' bytes, one after another
// Records follow the header to the end of the file, the block records
// after the last event record; the blob and offsets mean what they mean in
// root-events (root/EventBlobs.h, root/BlobBatch.h).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "root/BlobBatch.h"
#include "root/BlockRecords.h"
#include "root/OutputSupport.h"

namespace lanes::pds {

constexpr char kMagic[] = "LANESPDS";  // 8 bytes, without the terminating zero
constexpr std::uint32_t kVersion = 3;
constexpr std::uint32_t kOldestVersion = 1;
constexpr std::uint32_t kFirstWithRecords = 3;

// Immutable value type.
struct Header {
  std::string serialization, compression, compress;
  std::vector<std::pair<std::string, std::string>> products;  // label, type
  // The products of the run and lumi records (none before version 3).
  std::vector<std::pair<std::string, std::string>> lumiProducts = {}, runProducts = {};
  std::uint32_t version = kVersion;  // as read
};

// Where a record lies in a file, and which events it holds (none: a block record).
struct RecordPlace {
  std::uint64_t offset;  // of its length field
  std::uint64_t length;  // of its body
  std::uint64_t first;   // the ordinal of its first event in the file
  std::uint32_t events;
};

// The bytes of `header` (version 3), checksum included.
std::vector<char> encodeHeader(Header const& header);
// Appends the record of `batch` to `out`.
void encodeRecord(rootio::BlobBatch const& batch, std::vector<char>& out);
// Appends the block records of `records` to `out`, the lumis' first.
void encodeBlockRecords(rootio::BlockRecords const& records, std::vector<char>& out);

// A pds file open for reading. Lane-confined (one per source copy);
// every failure throws lanes::Exception "cannot read 'PATH': WHY" (WHY
// names the record where there is one).
class PdsFile {
 public:
  explicit PdsFile(std::string path);
  PdsFile(PdsFile const&) = delete;
  PdsFile& operator=(PdsFile const&) = delete;
  ~PdsFile();

  std::string const& path() const { return path_; }
  // The header, checked (magic, version, checksum).
  Header readHeader();
  // The header's bytes as they are (after readHeader()).
  std::vector<char> headerBytes();
  // Every record's place, after readHeader(); checks that each record lies
  // whole in the file (not its checksum).
  std::vector<RecordPlace> scan();
  // The batch record `index` at `place` holds, its checksum checked, its
  // events of `products` products each.
  rootio::BlobBatch readRecord(std::uint64_t index, RecordPlace const& place, std::size_t products);
  // The runs and lumis of the events of the record at `place` (appended to
  // `runs` and `lumis`), read without its checksum (checked as the record is read).
  void readIds(RecordPlace const& place, std::vector<std::uint32_t>& runs, std::vector<std::uint32_t>& lumis);
  // The block records among `places`, each checksum checked (kept: version 3 on).
  rootio::BlockRecords readBlockRecords(Header const& header, std::vector<RecordPlace> const& places);
  // Where the header ends, after readHeader().
  std::uint64_t dataStart() const { return dataStart_; }

  // Reads `size` bytes at `offset` (`what` they are, for the error).
  void readAt(std::uint64_t offset, void* to, std::size_t size, std::string const& what);
  [[noreturn]] void fail(std::string const& why) const;

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t dataStart_ = 0;  // where the first record begins
  std::uint32_t version_ = 0;
};

// The run and lumi records of the pds file at `path` (throws as PdsFile).
rootio::BlockRecords recordsIn(std::string const& path);

// The events a pds file holds, or nullopt if it does not read as one (an EntryCounter).
std::optional<std::uint64_t> eventsIn(std::string const& path);

// Appends bytes to an output's temporary file; every write is checked, and a
// failed one fails the OutputFile (removing it, naming the cause). Externally
// synchronised: one writer at a time.
class PdsWriter {
 public:
  // Writes `file`'s temporary anew, or after its first `keep` bytes.
  explicit PdsWriter(rootio::OutputFile& file, std::optional<std::uint64_t> keep = std::nullopt);
  PdsWriter(PdsWriter const&) = delete;
  PdsWriter& operator=(PdsWriter const&) = delete;
  ~PdsWriter();

  void write(char const* bytes, std::size_t size);
  void write(std::vector<char> const& bytes) { write(bytes.data(), bytes.size()); }
  // Closes; fails the file if the system reports a lost write.
  void close();

 private:
  rootio::OutputFile& file_;
  int fd_ = -1;
};

// Writes the event records of the pds `parts` under one header into
// `file`'s temporary (the parts of one job: their headers must agree).
void mergeFiles(std::vector<std::string> const& parts, rootio::OutputFile& file);
// Replaces the block records of `file`'s temporary by those of `records`.
void replaceBlockRecords(rootio::OutputFile& file, rootio::BlockRecords const& records);

}  // namespace lanes::pds
