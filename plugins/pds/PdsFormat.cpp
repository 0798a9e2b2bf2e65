#include "pds/PdsFormat.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "codec/Codec.h"
#include "lanes/core/Exception.h"

namespace lanes::pds {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the pds format stores little-endian integers as they are");

namespace {

constexpr std::size_t kMagicSize = 8;
constexpr std::size_t kPrefix = kMagicSize + 4 + 4;  // magic, version, H
// The sizes repeat from event to event (as root-events' sizes branch, which ROOT compresses with lz4).
constexpr codec::Compression kSizesCompression{codec::Algorithm::Lz4, 0};

template <typename T>
void put(std::vector<char>& out, T value) {
  auto const at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}

template <typename T>
void putAll(std::vector<char>& out, std::vector<T> const& values) {
  auto const at = out.size();
  out.resize(at + values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data() + at, values.data(), values.size() * sizeof(T));
}

void putString(std::vector<char>& out, std::string const& text) {
  put(out, static_cast<std::uint32_t>(text.size()));
  out.insert(out.end(), text.begin(), text.end());
}

// Reads what encodeHeader() and encodeRecord() put; false past the end.
class Cursor {
 public:
  Cursor(char const* bytes, std::size_t size) : at_(bytes), end_(bytes + size) {}

  template <typename T>
  bool get(T& value) {
    if (left() < sizeof(T)) return false;
    std::memcpy(&value, at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  template <typename T>
  bool getAll(std::vector<T>& values, std::size_t count) {
    if (left() / sizeof(T) < count) return false;
    values.resize(count);
    if (count) std::memcpy(values.data(), at_, count * sizeof(T));
    at_ += count * sizeof(T);
    return true;
  }
  bool getString(std::string& text) {
    std::uint32_t size = 0;
    if (!get(size) || left() < size) return false;
    text.assign(at_, size);
    at_ += size;
    return true;
  }
  std::size_t left() const { return static_cast<std::size_t>(end_ - at_); }
  char const* at() const { return at_; }

 private:
  char const* at_;
  char const* end_;
};

void putProducts(std::vector<char>& out, std::vector<std::pair<std::string, std::string>> const& products) {
  put(out, static_cast<std::uint32_t>(products.size()));
  for (auto const& [label, type] : products) {
    putString(out, label);
    putString(out, type);
  }
}

bool getProducts(Cursor& cursor, std::vector<std::pair<std::string, std::string>>& products) {
  std::uint32_t count = 0;
  bool ok = cursor.get(count);
  for (std::uint32_t p = 0; ok && p < count; ++p) {
    std::string label, type;
    ok = cursor.getString(label) && cursor.getString(type);
    products.emplace_back(std::move(label), std::move(type));
  }
  return ok;
}

// A block record's level as the format stores it.
constexpr std::uint32_t kLumiRecord = 1;
constexpr std::uint32_t kRunRecord = 2;

// Appends a whole record (length, body, checksum) whose body `encodeBody(out)` appends.
template <typename EncodeBody>
void encodeWhole(std::vector<char>& out, EncodeBody encodeBody) {
  auto const start = out.size();
  put(out, std::uint64_t{0});  // the length, known at the end
  encodeBody();
  std::uint64_t const length = out.size() - start - 8;
  std::memcpy(out.data() + start, &length, 8);
  put(out, codec::checksum(out.data() + start + 8, length));
}

}  // namespace

std::vector<char> encodeHeader(Header const& header) {
  std::vector<char> body;
  putString(body, header.serialization);
  putString(body, header.compression);
  putString(body, header.compress);
  putProducts(body, header.products);
  putProducts(body, header.lumiProducts);
  putProducts(body, header.runProducts);
  std::vector<char> out(kMagic, kMagic + kMagicSize);
  put(out, kVersion);
  put(out, static_cast<std::uint32_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  put(out, codec::checksum(body.data(), body.size()));
  return out;
}

void encodeRecord(rootio::BlobBatch const& batch, std::vector<char>& out) {
  encodeWhole(out, [&] {
    put(out, static_cast<std::uint32_t>(batch.size()));
    for (std::size_t i = 0; i < batch.size(); ++i) {
      put(out, static_cast<std::uint32_t>(batch.run[i]));
      put(out, static_cast<std::uint32_t>(batch.luminosityBlock[i]));
      put(out, static_cast<std::uint64_t>(batch.event[i]));
    }
    putAll(out, batch.events);
    thread_local std::vector<char> sizes;
    sizes.clear();
    codec::compress(kSizesCompression, reinterpret_cast<char const*>(batch.sizes.data()),
                    batch.sizes.size() * sizeof(UInt_t), sizes);
    put(out, static_cast<std::uint64_t>(sizes.size()));
    putAll(out, sizes);
    putAll(out, batch.blob);
  });
}

void encodeBlockRecords(rootio::BlockRecords const& records, std::vector<char>& out) {
  for (auto const level : {Level::Lumi, Level::Run}) {
    for (auto const& record : records.of(level).records) {
      encodeWhole(out, [&] {
        put(out, std::uint32_t{0});
        put(out, level == Level::Run ? kRunRecord : kLumiRecord);
        put(out, record.number.run);
        put(out, record.number.luminosityBlock);
        put(out, record.events);
        put(out, static_cast<std::uint32_t>(record.sizes.size()));
        putAll(out, record.sizes);
        putAll(out, record.blob);
      });
    }
  }
}

PdsFile::PdsFile(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail(std::strerror(errno));
  struct stat status {};
  if (::fstat(fd_, &status) != 0) fail(std::strerror(errno));
  if (!S_ISREG(status.st_mode)) fail("it is not a regular file");
  size_ = static_cast<std::uint64_t>(status.st_size);
}

PdsFile::~PdsFile() {
  if (fd_ >= 0) ::close(fd_);
}

void PdsFile::fail(std::string const& why) const { throw Exception("cannot read '" + path_ + "': " + why); }

void PdsFile::readAt(std::uint64_t offset, void* to, std::size_t size, std::string const& what) {
  auto* bytes = static_cast<char*>(to);
  while (size > 0) {
    auto const got = ::pread(fd_, bytes, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(what + ": " + std::strerror(errno));
    if (got == 0) fail(what + ": the file ends before it");
    bytes += got;
    size -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
}

Header PdsFile::readHeader() {
  if (size_ == 0) fail("it is empty (not a pds file)");
  char prefix[kPrefix] = {};
  if (size_ < kPrefix) fail("it is not a pds file (too short for a header)");
  readAt(0, prefix, kPrefix, "its header");
  if (std::memcmp(prefix, kMagic, kMagicSize) != 0) fail("it is not a pds file (it does not begin with LANESPDS)");
  std::uint32_t version = 0, length = 0;
  std::memcpy(&version, prefix + kMagicSize, 4);
  std::memcpy(&length, prefix + kMagicSize + 4, 4);
  if (version < kOldestVersion || version > kVersion) {
    fail("it is pds format version " + std::to_string(version) + "; this lanes reads versions " +
         std::to_string(kOldestVersion) + " to " + std::to_string(kVersion));
  }
  if (size_ < kPrefix + length + 8) fail("its header is truncated");
  std::vector<char> body(length);
  std::uint64_t stored = 0;
  readAt(kPrefix, body.data(), length, "its header");
  readAt(kPrefix + length, &stored, 8, "its header");
  if (codec::checksum(body.data(), length) != stored) fail("its header is damaged (checksum mismatch)");
  Header header;
  header.version = version_ = version;
  Cursor cursor(body.data(), body.size());
  bool ok = cursor.getString(header.serialization) && cursor.getString(header.compression) &&
            cursor.getString(header.compress) && getProducts(cursor, header.products);
  if (version >= kFirstWithRecords) {
    ok = ok && getProducts(cursor, header.lumiProducts) && getProducts(cursor, header.runProducts);
  }
  if (!ok || cursor.left() != 0) fail("its header is malformed");
  dataStart_ = kPrefix + length + 8;
  return header;
}

std::vector<char> PdsFile::headerBytes() {
  std::vector<char> bytes(dataStart_);
  readAt(0, bytes.data(), bytes.size(), "its header");
  return bytes;
}

std::vector<RecordPlace> PdsFile::scan() {
  std::vector<RecordPlace> places;
  std::uint64_t first = 0;
  for (std::uint64_t offset = dataStart_; offset < size_;) {
    auto const record = "record " + std::to_string(places.size());
    if (size_ - offset < 8 + 4) fail(record + " is truncated (the file ends inside its length)");
    char start[12];
    readAt(offset, start, sizeof start, record);
    RecordPlace place{offset, 0, first, 0};
    std::memcpy(&place.length, start, 8);
    std::memcpy(&place.events, start + 8, 4);
    if (place.length > size_ - offset - 8 || size_ - offset - 8 - place.length < 8) {
      fail(record + " is truncated (its length reaches past the end of the file)");
    }
    // Each event takes at least its 16 bytes of ids; a block record (no events) its 28 bytes of numbers.
    bool const block = place.events == 0 && version_ >= kFirstWithRecords;
    if (block ? place.length < 28 : place.events == 0 || place.events > place.length / 16) {
      fail(record + " is damaged (its event count " + std::to_string(place.events) + " does not fit its length)");
    }
    places.push_back(place);
    first += place.events;
    offset += 8 + place.length + 8;
  }
  return places;
}

rootio::BlobBatch PdsFile::readRecord(std::uint64_t index, RecordPlace const& place, std::size_t products) {
  auto const record = "record " + std::to_string(index);
  thread_local std::vector<char> body;
  body.resize(place.length + 8);
  readAt(place.offset + 8, body.data(), body.size(), record);
  std::uint64_t stored = 0;
  std::memcpy(&stored, body.data() + place.length, 8);
  if (codec::checksum(body.data(), place.length) != stored) fail(record + ": checksum mismatch");
  rootio::BlobBatch batch;
  Cursor cursor(body.data(), place.length);
  std::uint32_t events = 0;
  if (!cursor.get(events) || events != place.events) fail(record + " is malformed (its event count changed)");
  bool ok = true;
  batch.run.resize(events);
  batch.luminosityBlock.resize(events);
  batch.event.resize(events);
  for (std::uint32_t i = 0; ok && i < events; ++i) {
    std::uint32_t run = 0, luminosityBlock = 0;
    std::uint64_t event = 0;
    ok = cursor.get(run) && cursor.get(luminosityBlock) && cursor.get(event);
    batch.run[i] = run;
    batch.luminosityBlock[i] = luminosityBlock;
    batch.event[i] = event;
  }
  std::uint64_t frame = 0;
  ok = ok && cursor.getAll(batch.events, events + std::size_t{1}) && cursor.get(frame) && frame <= cursor.left();
  if (!ok) fail(record + " is malformed (shorter than its ids, offsets and sizes)");
  thread_local std::vector<char> sizes;
  try {
    codec::decompress(cursor.at(), static_cast<std::size_t>(frame), sizes);
  } catch (Exception const& error) {
    fail(record + ": its sizes: " + error.message());
  }
  if (sizes.size() != std::size_t{events} * products * sizeof(UInt_t)) {
    fail(record + " is malformed (its sizes are not " + std::to_string(products) + " per event)");
  }
  batch.sizes.resize(std::size_t{events} * products);
  if (!sizes.empty()) std::memcpy(batch.sizes.data(), sizes.data(), sizes.size());
  batch.blob.assign(cursor.at() + frame, cursor.at() + cursor.left());
  return batch;
}

void PdsFile::readIds(RecordPlace const& place, std::vector<std::uint32_t>& runs, std::vector<std::uint32_t>& lumis) {
  thread_local std::vector<char> ids;
  ids.resize(16 * std::size_t{place.events});
  readAt(place.offset + 12, ids.data(), ids.size(), "the ids of a record");
  for (std::size_t i = 0; i < place.events; ++i) {
    std::uint32_t number[2];
    std::memcpy(number, ids.data() + 16 * i, 8);
    runs.push_back(number[0]);
    lumis.push_back(number[1]);
  }
}

rootio::BlockRecords PdsFile::readBlockRecords(Header const& header, std::vector<RecordPlace> const& places) {
  rootio::BlockRecords records{header.version >= kFirstWithRecords, {header.lumiProducts, {}},
                               {header.runProducts, {}}};
  std::vector<char> body;
  for (std::size_t index = 0; index < places.size(); ++index) {
    auto const& place = places[index];
    if (place.events > 0) continue;
    auto const record = "record " + std::to_string(index);
    body.resize(place.length + 8);
    readAt(place.offset + 8, body.data(), body.size(), record);
    std::uint64_t stored = 0;
    std::memcpy(&stored, body.data() + place.length, 8);
    if (codec::checksum(body.data(), place.length) != stored) fail(record + ": checksum mismatch");
    Cursor cursor(body.data(), place.length);
    std::uint32_t events = 0, level = 0, products = 0;
    rootio::BlockRecord block;
    bool ok = cursor.get(events) && cursor.get(level) && cursor.get(block.number.run) &&
              cursor.get(block.number.luminosityBlock) && cursor.get(block.events) && cursor.get(products) &&
              cursor.getAll(block.sizes, products) && (level == kLumiRecord || level == kRunRecord);
    if (!ok) fail(record + " is malformed (not a run or lumi record)");
    block.blob.assign(cursor.at(), cursor.at() + cursor.left());
    records.of(level == kRunRecord ? Level::Run : Level::Lumi).records.push_back(std::move(block));
  }
  return records;
}

rootio::BlockRecords recordsIn(std::string const& path) {
  PdsFile file(path);
  auto const header = file.readHeader();
  return file.readBlockRecords(header, file.scan());
}

std::optional<std::uint64_t> eventsIn(std::string const& path) {
  try {
    PdsFile file(path);
    file.readHeader();
    std::uint64_t events = 0;
    for (auto const& place : file.scan()) events += place.events;
    return events;
  } catch (Exception const&) {
    return std::nullopt;
  }
}

PdsWriter::PdsWriter(rootio::OutputFile& file, std::optional<std::uint64_t> keep) : file_(file) {
  fd_ = ::open(file_.temporaryPath().c_str(), O_WRONLY | O_CREAT | (keep ? 0 : O_TRUNC) | O_CLOEXEC, 0644);
  if (fd_ < 0) file_.fail(std::strerror(errno));
  if (keep && (::ftruncate(fd_, static_cast<off_t>(*keep)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)) {
    file_.fail(std::strerror(errno));
  }
}

PdsWriter::~PdsWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void PdsWriter::write(char const* bytes, std::size_t size) {
  while (size > 0) {
    auto const written = ::write(fd_, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) file_.fail(written < 0 ? std::strerror(errno) : "the system wrote nothing");
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
}

void PdsWriter::close() {
  if (::close(std::exchange(fd_, -1)) != 0) file_.fail(std::strerror(errno));
}

namespace {

// Where the last event record of the file ends (its block records follow).
std::uint64_t eventRecordsEnd(PdsFile const& file, std::vector<RecordPlace> const& places) {
  auto end = file.dataStart();
  for (auto const& place : places) {
    if (place.events > 0) end = place.offset + 8 + place.length + 8;
  }
  return end;
}

}  // namespace

void mergeFiles(std::vector<std::string> const& parts, rootio::OutputFile& file) {
  PdsWriter writer(file);
  std::vector<char> header;
  std::vector<char> buffer(std::size_t{1} << 20);
  for (auto const& part : parts) {
    PdsFile input(part);
    input.readHeader();
    auto bytes = input.headerBytes();
    if (header.empty()) {
      header = std::move(bytes);
      writer.write(header);
    } else if (bytes != header) {
      file.fail("its part '" + part + "' has another header (other products or settings)");
    }
    auto const places = input.scan();
    auto const end = eventRecordsEnd(input, places);
    auto offset = input.dataStart();
    while (offset < end) {
      auto const size = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), end - offset));
      input.readAt(offset, buffer.data(), size, "its records");
      writer.write(buffer.data(), size);
      offset += size;
    }
  }
  writer.close();
}

void replaceBlockRecords(rootio::OutputFile& file, rootio::BlockRecords const& records) {
  std::uint64_t end = 0;
  {
    PdsFile merged(file.temporaryPath());
    merged.readHeader();
    end = eventRecordsEnd(merged, merged.scan());
  }
  std::vector<char> bytes;
  encodeBlockRecords(records, bytes);
  PdsWriter writer(file, end);
  writer.write(bytes);
  writer.close();
}

}  // namespace lanes::pds
