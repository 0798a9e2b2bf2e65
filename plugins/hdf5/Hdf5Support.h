#pragma once
// What the HDF5 output and source share: the one lock every HDF5 call holds,
// HDF5 errors turned into one-line lanes exceptions, owned HDF5 ids, the
// file's layout (names and attributes), and the HDF5 types of numbers.

#include <hdf5.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

namespace lanes::rootio {
struct Fundamental;
}

namespace lanes::hdf5 {

// Every HDF5 call of the process holds this lock (a source and an output of
// one job run on different threads): HDF5 built without thread safety
// (H5_HAVE_THREADSAFE; Debian's serial build has it, and then serialises
// every call itself) must not be entered concurrently. The first call,
// before any other HDF5 call, keeps HDF5 from cleaning up at exit; the
// first on each thread silences HDF5's own printing of its error stack
// (check() reports it instead).
std::unique_lock<std::mutex> lockLibrary();

// The innermost message on HDF5's error stack of this thread ("" if none),
// clearing the stack.
std::string takeError();

// Throws a lanes::Exception "WHAT: HDF5'S REASON".
[[noreturn]] void throwError(std::string const& what);

// `result` of an HDF5 call, or a lanes::Exception "WHAT: HDF5'S REASON" if it
// failed (negative).
template <typename Result>
Result check(Result result, std::string const& what) {
  if (result < 0) throwError(what);
  return result;
}

// An HDF5 id, closed with its type's close function. Externally
// synchronised by lockLibrary(), like every HDF5 call; move-only.
class Id {
 public:
  Id() = default;
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Id(Id&& other) noexcept : id_(std::exchange(other.id_, -1)), close_(other.close_) {}
  Id& operator=(Id&& other) noexcept;
  Id(Id const&) = delete;
  Id& operator=(Id const&) = delete;
  ~Id() { reset(); }

  hid_t get() const { return id_; }
  // Closes now; false if HDF5 says the close failed (a file's last write).
  bool close();
  void reset() { close(); }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

// The file's layout (docs/formats.md "HDF5"): the root group's attributes
// `lanes_layout` (kColumns or kBlobs) and `lanes_version`; the dataset
// kEventIds; a group per product under kProducts, in the job's product
// order, with attributes `kind` (kScalar, kVector, kBlob) and `type`, and the
// datasets kValues and (vectors and blobs) kOffsets: event i's values are
// values[offsets[i-1] : offsets[i]] (offsets[-1] = 0). Version 2: every
// dataset checksummed (Fletcher32), blobs in codec version 2 frames;
// version 1 (no checksum filter, codec version 1 frames) still reads.
inline constexpr char kColumns[] = "columns";
inline constexpr char kBlobs[] = "blobs";
inline constexpr int kVersion = 2;
inline constexpr int kOldestVersion = 1;
inline constexpr char kEventIds[] = "event_id";
inline constexpr char kProducts[] = "products";
inline constexpr char kValues[] = "values";
inline constexpr char kOffsets[] = "offsets";
inline constexpr char kScalar[] = "scalar";
inline constexpr char kVector[] = "vector";
inline constexpr char kBlob[] = "blob";

// How the blobs of a file were made (docs/formats.md "HDF5"): the root group's
// attributes `lanes_serialization` (root, unrolled: plugins/root's
// Serialization.h), `lanes_compression` (none, lz4, zstd) and, if
// compressed, `lanes_compress`: kCompressProduct (each event's blob of a
// product is one codec/Codec.h frame) or kCompressBatch (each written batch
// of a product's blobs is one frame, which holds their sizes (uint32,
// little-endian) and then them; the dataset kBatchEnds holds the event count
// at the end of each batch, a blob product's kFrames the end of each frame
// in its values, in place of kOffsets). A file without them holds
// TBufferFile bytes, uncompressed.
inline constexpr char kCompressProduct[] = "product";
inline constexpr char kCompressBatch[] = "batch";
inline constexpr char kBatchEnds[] = "batch_ends";
inline constexpr char kFrames[] = "frames";
struct BlobEncoding {
  std::string serialization = "root";
  std::string compression = "none";
  std::string compress = "";  // "" when compression is none
  bool operator==(BlobEncoding const& other) const {
    return serialization == other.serialization && compression == other.compression && compress == other.compress;
  }
  bool framesBatches() const { return compression != "none" && compress == kCompressBatch; }
};
BlobEncoding blobEncodingOf(hid_t file);
void writeBlobEncoding(hid_t file, BlobEncoding const& encoding);

// One event id as kEventIds stores it.
struct EventIdRecord {
  std::uint32_t run;
  std::uint32_t luminosityBlock;
  std::uint64_t event;
};
// The compound type of EventIdRecord (fields run, luminosityBlock, event).
Id eventIdType();

// A fundamental as HDF5 stores it: its memory type (a bool is h5py's enum
// of FALSE and TRUE, so that numpy reads it as bool; not to be closed), and
// how the elements of a std::vector of it are appended to bytes (returns
// their count; std::vector<bool> has no data()).
struct Number {
  hid_t memoryType;
  std::size_t (*appendArray)(void const* vector, std::vector<unsigned char>& to);
};
Number numberOf(rootio::Fundamental const& fundamental);

// An integer attribute of `object`, or nullopt if it has none. Both throw
// lanes::Exception naming the attribute, the object and its file if it
// cannot be read.
std::optional<int> intAttribute(hid_t object, char const* name);
// A string attribute of `object`, or "" if it has none.
std::string stringAttribute(hid_t object, char const* name);
void writeStringAttribute(hid_t object, char const* name, std::string const& value);

// Opens `path` read-only; throws lanes::Exception if it is not an HDF5 file
// or cannot be opened.
Id openFile(std::string const& path);

// The number of events in the HDF5 file at `path` (its kEventIds' length),
// or nullopt if it cannot be read.
std::optional<std::uint64_t> eventsIn(std::string const& path);

// The names of the groups in `group`, in creation order.
std::vector<std::string> childrenOf(hid_t group, std::string const& what);

// Whether `parent` has a link (a group or dataset) `name`.
bool hasLink(hid_t parent, std::string const& name);

// The length of the 1-D dataset `dataset`.
std::uint64_t lengthOf(hid_t dataset, std::string const& what);

// Reads elements [first, first + count) of the 1-D dataset `dataset` into
// `to`, as `memoryType`; a failure says "WHAT: dataset 'PATH': HDF5'S
// REASON" (a chunk whose Fletcher32 checksum fails: "data error detected by
// Fletcher32 checksum").
void readRange(hid_t dataset, hid_t memoryType, std::uint64_t first, std::uint64_t count, void* to,
               std::string const& what);

}  // namespace lanes::hdf5
