#include "hdf5/Hdf5Source.h"

#include <TClass.h>

#include <algorithm>
#include <tuple>

#include "codec/Codec.h"
#include "hdf5/Hdf5Records.h"
#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/ProductStreaming.h"
#include "root/RootSupport.h"
#include "root/Serialization.h"

namespace lanes::hdf5 {

struct Hdf5Source::Product {
  enum class Kind { Scalar, Vector, Blob };
  std::string label;
  Kind kind = Kind::Blob;
  rootio::RootType type;
  rootio::Fundamental const* number = nullptr;  // a scalar's or a vector's element
  hid_t memoryType = -1;
  std::size_t element = 1;
  std::unique_ptr<rootio::ProductSerializer> serializer;  // a blob's
  Id values, offsets;
  std::uint64_t length = 0;  // of values
  std::vector<std::uint64_t> frameEnds;  // a blob, compress=batch: each frame's end in values
  // The window: events [first, last), the values from offset `base` on, and
  // each event's end offset.
  std::uint64_t first = 0, last = 0, base = 0;
  std::vector<unsigned char> window;
  std::vector<std::uint64_t> ends;
};

// One event a lane holds: where it lies, and its lane's objects.
struct Hdf5Source::Record {
  std::size_t file = 0;
  std::uint64_t local = 0;  // its entry in the file
  std::unique_ptr<rootio::ReusedObjects> objects;
};

// The class a product is read into an object of (ReusedObjects): a vector's,
// or a blob's unless it is emulated (a new object each time, wrapped); none for a scalar.
TClass* Hdf5Source::classOf(Product const& product) {
  if (product.kind == Product::Kind::Vector) return TClass::GetClass(product.number->array);
  if (product.kind == Product::Kind::Blob && !product.type.emulated) return product.type.cls;
  return nullptr;
}

// One input file, open. Its products are in the order of the source's.
struct Hdf5Source::OpenFile {
  std::string path;
  std::string layout;
  rootio::SerializationKind serialization = rootio::SerializationKind::Root;
  bool framedBlobs = false;              // compress=product: each blob is a codec frame
  bool framedBatches = false;            // compress=batch: each batch of a product's blobs is
  std::vector<std::uint64_t> batchEnds;  // and these are the batches' ends (events)
  Id file, ids;
  std::uint64_t events = 0;
  std::vector<Product> products;
  std::vector<ProductDescription> descriptions;

  [[noreturn]] void fail(std::string const& problem) const {
    throw Exception("cannot read '" + path + "': " + problem);
  }
  // Opens product `label`, a group of `parent`, and appends it.
  void openProduct(hid_t parent, std::string const& label);
  // Reads the whole 1-D dataset `name` of `group`, ends (uint64), checking
  // that they are in order and the last is `last` (`what` has them, for errors).
  std::vector<std::uint64_t> readEnds(hid_t group, char const* name, std::uint64_t last, std::string const& what) const;

  ~OpenFile() {
    auto const lock = lockLibrary();
    products.clear();
    ids.reset();
    file.reset();
  }
};

Hdf5Source::Hdf5Source(Options const& options) : Hdf5Source(options, PluginOptions(options, "hdf5")) {}

Hdf5Source::Hdf5Source(Options const& options, PluginOptions const& checked)
    : batch_(checked.positive("batch", 1000)), sequence_(rootio::inputFiles(checked)) {
  rootio::initialiseRoot();
  auto const& files = sequence_.files();
  bool const skipBad = options.getBool("skip-bad-files", false);
  rootio::EntryCounts counts(files.size());
  auto blocks = std::make_shared<rootio::InputBlocks>();
  auto const count = [&](std::size_t index) { return openAndIndex(index, *blocks); };
  checked.forOption("file", [&] {
    auto const first = rootio::openFirstReadable(files, skipBad ? &skipped_ : nullptr,
                                                 [&](std::size_t index) { counts.learn(index, count(index)); });
    for (std::size_t index = 0; index < first; ++index) counts.learn(index, 0);
    if (skipBad) {
      rootio::countOrSkip(files, first + 1, counts, skipped_, count);
    } else {
      for (auto index = first + 1; index < files.size(); ++index) counts.learn(index, count(index));
    }
  });
  for (std::size_t index = 0; index < files.size(); ++index) sequence_.addEntries(*counts.known(index));
  blocks->finish();
  blocks_ = std::move(blocks);
}

Hdf5Source::Hdf5Source(Hdf5Source const& other, std::shared_ptr<rootio::InputBlocks const> blocks)
    : batch_(other.batch_), sequence_(other.sequence_), blocks_(std::move(blocks)) {}

Hdf5Source::~Hdf5Source() = default;

std::unique_ptr<Source> Hdf5Source::lookAhead() const {
  if (runProducts().empty() && lumiProducts().empty()) return nullptr;
  return std::unique_ptr<Source>(new Hdf5Source(*this, blocks_));
}

bool Hdf5Source::at(std::uint64_t ordinal, SourceEvent& event) {
  next_ = ordinal;
  return next(event);
}

std::uint64_t Hdf5Source::openAndIndex(std::size_t index, rootio::InputBlocks& blocks) {
  auto const file = open(index);
  std::vector<std::uint32_t> runs, lumis;
  rootio::BlockRecords records;
  {
    auto const lock = lockLibrary();
    std::vector<EventIdRecord> ids;
    std::string const what = "cannot read '" + file->path + "'";
    for (std::uint64_t first = 0; first < file->events; first += ids.size()) {
      ids.resize(std::min<std::uint64_t>(file->events - first, std::uint64_t{1} << 16));
      readRange(file->ids.get(), eventIdType().get(), first, ids.size(), ids.data(), what);
      for (auto const& id : ids) {
        runs.push_back(id.run);
        lumis.push_back(id.luminosityBlock);
      }
    }
    records = readRecords(file->file.get(), file->path);
  }
  blocks.addRecords(std::move(records), file->path, file->serialization);  // throws before it adds anything
  blocks.addEvents(runs.data(), lumis.data(), runs.size());
  if (!declaredRecords_) {
    for (auto const& description : blocks.products(Level::Lumi)) declareLumiProduct(description);
    for (auto const& description : blocks.products(Level::Run)) declareRunProduct(description);
    declaredRecords_ = true;
  }
  return file->events;
}

std::unique_ptr<Hdf5Source::OpenFile> Hdf5Source::open(std::size_t index) {
  auto file = openPath(sequence_.files()[index]);
  if (!declared_) {
    for (auto const& description : file->descriptions) declare(description);
    for (auto const& product : file->products) classes_.push_back(classOf(product));
    declared_ = true;
    return file;
  }
  auto const& declared = products();
  auto const& found = file->descriptions;
  auto const name = [](std::vector<ProductDescription> const& list, std::size_t i) {
    if (i >= list.size()) return std::string("none");
    return "'" + list[i].label + "'" + (list[i].typeName.empty() ? "" : " (" + list[i].typeName + ")");
  };
  for (std::size_t p = 0; p < std::max(declared.size(), found.size()); ++p) {
    if (p >= declared.size() || p >= found.size() || declared[p].label != found[p].label ||
        declared[p].type != found[p].type) {
      file->fail("it holds other products than the first input file: its product " + std::to_string(p) + " is " +
                 name(found, p) + ", not " + name(declared, p));
    }
  }
  return file;
}

std::unique_ptr<Hdf5Source::OpenFile> Hdf5Source::openPath(std::string const& path) const {
  auto file = std::make_unique<OpenFile>();
  file->path = path;
  auto const lock = lockLibrary();
  file->file = openFile(path);
  file->layout = stringAttribute(file->file.get(), "lanes_layout");
  if (file->layout != kColumns && file->layout != kBlobs) {
    file->fail(file->layout.empty() ? "it has no lanes_layout attribute (not written by the hdf5 output)"
                                    : "unknown layout '" + file->layout + "' (known: columns, blobs)");
  }
  auto const version = intAttribute(file->file.get(), "lanes_version");
  if (!version || *version < kOldestVersion || *version > kVersion) {
    file->fail((version ? "it is lanes_version " + std::to_string(*version) : std::string("it has no lanes_version")) +
               "; this lanes reads versions " + std::to_string(kOldestVersion) + " to " + std::to_string(kVersion));
  }
  auto const encoding = blobEncodingOf(file->file.get());
  try {
    file->serialization = rootio::parseSerialization(encoding.serialization);
    if (encoding.compression != "none") codec::parseCompression(encoding.compression, 0, false);
  } catch (Exception const& error) {
    file->fail(error.message());
  }
  if (encoding.compression != "none" && encoding.compress != kCompressProduct && encoding.compress != kCompressBatch) {
    file->fail("unknown lanes_compress '" + encoding.compress + "' (known: product, batch)");
  }
  file->framedBlobs = encoding.compression != "none" && encoding.compress == kCompressProduct;
  file->framedBatches = encoding.framesBatches();
  file->ids = Id(H5Dopen2(file->file.get(), kEventIds, H5P_DEFAULT), &H5Dclose);
  if (file->ids.get() < 0) file->fail(std::string("it has no dataset '") + kEventIds + "': " + takeError());
  file->events = lengthOf(file->ids.get(), "cannot read '" + path + "'");
  if (file->framedBatches) {
    file->batchEnds = file->readEnds(file->file.get(), kBatchEnds, file->events, "it");
  }
  Id products(H5Gopen2(file->file.get(), kProducts, H5P_DEFAULT), &H5Gclose);
  if (products.get() < 0) file->fail(std::string("it has no group '") + kProducts + "': " + takeError());
  for (auto const& label : childrenOf(products.get(), "cannot read '" + path + "'")) {
    file->openProduct(products.get(), label);
  }
  return file;
}

void Hdf5Source::OpenFile::openProduct(hid_t parent, std::string const& label) {
  auto const problem = [&](std::string const& what) { fail("product '" + label + "' " + what); };
  Id group(H5Gopen2(parent, label.c_str(), H5P_DEFAULT), &H5Gclose);
  if (group.get() < 0) problem("is not a group: " + takeError());
  Product product;
  product.label = label;
  auto const kind = stringAttribute(group.get(), "kind");
  auto const typeName = stringAttribute(group.get(), "type");
  bool const numeric = kind == kScalar || kind == kVector;
  if (!(numeric && layout == kColumns) && kind != kBlob) {
    problem("has kind '" + kind + "', which a " + layout + " file does not hold");
  }
  product.kind = kind == kScalar ? Product::Kind::Scalar : kind == kVector ? Product::Kind::Vector : Product::Kind::Blob;
  try {  // their errors name the product, not the file
    product.type = rootio::rootTypeNamed(label, typeName);
    if (!numeric) product.serializer = rootio::makeSerializer(serialization, product.type, label);
  } catch (Exception const& error) {
    fail(error.message());
  }
  product.number = product.kind == Product::Kind::Vector ? rootio::fundamentalByArray(rootio::productTypeOf(product.type))
                                           : product.type.fundamental;
  if (numeric && !product.number) problem("has type '" + typeName + "', not a " + kind + " of numbers");
  if (numeric) {
    product.memoryType = numberOf(*product.number).memoryType;
    product.element = product.number->size;
  } else {
    product.memoryType = H5T_NATIVE_UINT8;
  }
  auto const dataset = [&](char const* name) {
    Id id(H5Dopen2(group.get(), name, H5P_DEFAULT), &H5Dclose);
    if (id.get() < 0) problem(std::string("has no dataset '") + name + "': " + takeError());
    return id;
  };
  product.values = dataset(kValues);
  product.length = lengthOf(product.values.get(), "cannot read product '" + label + "'");
  if (framedBatches && product.kind == Product::Kind::Blob) {  // its frames hold its blobs' sizes
    product.frameEnds = readEnds(group.get(), kFrames, product.length, "product '" + label + "'");
    if (product.frameEnds.size() != batchEnds.size()) {
      problem("has " + std::to_string(product.frameEnds.size()) + " frames for " + std::to_string(batchEnds.size()) +
              " batches");
    }
  } else if (product.kind == Product::Kind::Scalar) {
    if (product.length != events) problem("has " + std::to_string(product.length) + " values for " + std::to_string(events) + " events");
  } else {
    product.offsets = dataset(kOffsets);
    auto const offsets = lengthOf(product.offsets.get(), "cannot read product '" + label + "'");
    if (offsets != events) problem("has " + std::to_string(offsets) + " offsets for " + std::to_string(events) + " events");
  }
  if (product.kind == Product::Kind::Vector) {
    descriptions.push_back({label, product.number->array, {}});
  } else {
    descriptions.push_back({label, rootio::productTypeOf(product.type), product.type.name});
  }
  products.push_back(std::move(product));
}

std::vector<std::uint64_t> Hdf5Source::OpenFile::readEnds(hid_t group, char const* name, std::uint64_t last,
                                                          std::string const& what) const {
  Id dataset(H5Dopen2(group, name, H5P_DEFAULT), &H5Dclose);
  if (dataset.get() < 0) fail(what + " has no dataset '" + name + "': " + takeError());
  std::string const reading = "cannot read '" + path + "': " + what;
  std::vector<std::uint64_t> ends(lengthOf(dataset.get(), reading));
  readRange(dataset.get(), H5T_NATIVE_UINT64, 0, ends.size(), ends.data(), reading);
  if (!std::is_sorted(ends.begin(), ends.end()) || (ends.empty() ? 0 : ends.back()) != last) {
    fail(what + " has '" + name + "' out of order or not ending at " + std::to_string(last));
  }
  return ends;
}

Hdf5Source::OpenFile& Hdf5Source::fileAt(std::size_t index) {
  originFile_ = index;
  return open_.get(index, [this](std::size_t i) { return open(i); });
}

bool Hdf5Source::next(SourceEvent& event) {
  auto objects = events_.next(event.entry, classes_);  // the lane has finished the event of event.entry
  event.entry = 0;
  if (next_ >= sequence_.entries()) return false;
  auto record = std::make_unique<Record>();
  std::tie(record->file, record->local) = sequence_.locate(next_);
  record->objects = std::move(objects);
  if (next_ < idFirst_ || next_ >= idFirst_ + idWindow_.size()) {
    auto& file = fileAt(record->file);
    auto const count = std::min(batch_, file.events - record->local);
    idWindow_.resize(count);
    auto const lock = lockLibrary();
    readRange(file.ids.get(), eventIdType().get(), record->local, count, idWindow_.data(),
              "cannot read '" + file.path + "'");
    idFirst_ = next_;
  }
  auto const& id = idWindow_[next_ - idFirst_];
  event.id = EventId{id.run, id.luminosityBlock, id.event};
  event.entry = events_.hold(std::move(record));
  ++next_;
  return true;
}

bool Hdf5Source::skip(std::uint64_t count) { return sequence_.skip(next_, count); }

void Hdf5Source::read(SourceEvent const& event, std::size_t index, ProductSlot& slot) {
  auto& record = rootio::HeldEvents<Record>::of(event);
  auto& file = fileAt(record.file);
  auto& product = file.products[index];
  auto const entry = record.local;
  if (entry < product.first || entry >= product.last) load(file, product, entry);
  auto const k = entry - product.first;
  if (product.kind == Product::Kind::Scalar) {
    product.number->putScalar(product.window.data() + k * product.element, slot, product.element);
    return;
  }
  auto const begin = k == 0 ? product.base : product.ends[k - 1];
  auto const count = product.ends[k] - begin;
  auto const* const at = product.window.data() + (begin - product.base) * product.element;
  if (product.kind == Product::Kind::Vector) {
    record.objects->read(index, count * product.element, slot,
                         [&](void* array) { product.number->assignArray(array, at, count); });
    return;
  }
  try {
    auto const* bytes = reinterpret_cast<char const*>(at);
    auto size = count;
    if (file.framedBlobs) {
      thread_local std::vector<char> raw;
      codec::decompress(bytes, count, raw);
      bytes = raw.data();
      size = raw.size();
    }
    if (!classes_[index]) return product.serializer->read(bytes, size, slot);  // an emulated class
    record.objects->read(index, size, slot, [&](void* object) { product.serializer->readInto(bytes, size, object); });
  } catch (Exception const& error) {
    file.fail("product '" + product.label + "' of event " + std::to_string(entry) + ": " + error.message());
  }
}

void Hdf5Source::load(OpenFile const& file, Product& product, std::uint64_t entry) const {
  if (file.framedBatches && product.kind == Product::Kind::Blob) return loadFrame(file, product, entry);
  auto const lock = lockLibrary();
  auto const last = std::min(file.events, entry + batch_);
  std::string const what = "cannot read '" + file.path + "': product '" + product.label + "'";
  std::uint64_t from = entry, to = last;
  if (product.kind != Product::Kind::Scalar) {
    loadOffsets(file, product, entry, last);
    from = product.base;
    to = product.ends.back();
  }
  product.window.resize((to - from) * product.element);
  readRange(product.values.get(), product.memoryType, from, to - from, product.window.data(), what);
  product.first = entry;
  product.last = last;
}

void Hdf5Source::loadFrame(OpenFile const& file, Product& product, std::uint64_t entry) const {
  auto const& batchEnds = file.batchEnds;
  auto const f =
      static_cast<std::size_t>(std::upper_bound(batchEnds.begin(), batchEnds.end(), entry) - batchEnds.begin());
  auto const first = f == 0 ? 0 : batchEnds[f - 1], last = batchEnds[f];
  auto const from = f == 0 ? 0 : product.frameEnds[f - 1], to = product.frameEnds[f];
  thread_local std::vector<char> frame, raw;
  {
    auto const lock = lockLibrary();
    frame.resize(to - from);
    readRange(product.values.get(), H5T_NATIVE_UINT8, from, frame.size(), frame.data(),
              "cannot read '" + file.path + "': product '" + product.label + "'");
  }
  auto const where = "product '" + product.label + "' batch " + std::to_string(f);
  try {
    codec::decompress(frame.data(), frame.size(), raw);
  } catch (Exception const& error) {
    file.fail(where + ": " + error.message());
  }
  // The frame: each blob's size (uint32, little-endian), then the blobs.
  auto const events = last - first;
  if (raw.size() < 4 * events) {
    file.fail(where + " is too short for the sizes of its " + std::to_string(events) + " events");
  }
  product.base = 0;
  product.ends.resize(events);
  std::uint64_t end = 0;
  for (std::uint64_t i = 0; i < events; ++i) {
    std::uint64_t size = 0;
    for (int b = 0; b < 4; ++b) size |= std::uint64_t{static_cast<unsigned char>(raw[4 * i + b])} << (8 * b);
    product.ends[i] = end += size;
  }
  if (end != raw.size() - 4 * events) {
    file.fail(where + " holds " + std::to_string(raw.size() - 4 * events) + " bytes of blobs, its sizes say " +
              std::to_string(end));
  }
  product.window.assign(raw.begin() + static_cast<std::ptrdiff_t>(4 * events), raw.end());
  product.first = first;
  product.last = last;
}

void Hdf5Source::loadOffsets(OpenFile const& file, Product& product, std::uint64_t first, std::uint64_t last) const {
  std::string const what = "cannot read '" + file.path + "': product '" + product.label + "'";
  // The end of the event before the window is where the window's values begin.
  auto const from = first == 0 ? 0 : first - 1;
  std::vector<std::uint64_t> ends(last - from);
  readRange(product.offsets.get(), H5T_NATIVE_UINT64, from, ends.size(), ends.data(), what);
  product.base = first == 0 ? 0 : ends.front();
  if (first > 0) ends.erase(ends.begin());
  auto previous = product.base;
  for (auto const end : ends) {
    if (end < previous || end > product.length) {
      file.fail("product '" + product.label + "' has offsets out of order or beyond its " +
                std::to_string(product.length) + " values");
    }
    previous = end;
  }
  product.ends = std::move(ends);
}

namespace {
RegisterSource<Hdf5Source> const registration(
    "hdf5",
    "reads the events of files the hdf5 output wrote (either layout, any serialization and compression), one after "
    "another: file=PATH (repeatable) or files=LIST, batch=N, skip-bad-files=true|false (go on past a listed file "
    "that cannot be read or holds other products, naming it)");
}

}  // namespace lanes::hdf5
