#include "hdf5/Hdf5Source.h"

#include <algorithm>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/ProductStreaming.h"
#include "root/RootSupport.h"

namespace lanes::hdf5 {

struct Hdf5Source::Product {
  std::string label;
  std::string kind;  // kScalar, kVector or kBlob
  rootio::RootType type;
  rootio::Fundamental const* number = nullptr;  // a scalar's or a vector's element
  hid_t memoryType = -1;
  std::size_t element = 1;
  Id values, offsets;
  std::uint64_t length = 0;  // of values
  // The window: events [first, last), the values from offset `base` on, and
  // each event's end offset.
  std::uint64_t first = 0, last = 0, base = 0;
  std::vector<unsigned char> window;
  std::vector<std::uint64_t> ends;
};

Hdf5Source::Hdf5Source(Options const& options) : Hdf5Source(options, PluginOptions(options, "hdf5")) {}

Hdf5Source::Hdf5Source(Options const&, PluginOptions const& checked)
    : path_(checked.required("file")), batch_(checked.positive("batch", 1000)) {
  rootio::initialiseRoot();
  checked.forOption("file", [&] { open(); });
}

Hdf5Source::~Hdf5Source() {
  auto const lock = lockLibrary();
  products_.clear();
  ids_.reset();
  file_.reset();
}

void Hdf5Source::fail(std::string const& problem) const { throw Exception("cannot read '" + path_ + "': " + problem); }

void Hdf5Source::open() {
  auto const lock = lockLibrary();
  file_ = openFile(path_);
  layout_ = stringAttribute(file_.get(), "lanes_layout");
  if (layout_ != kColumns && layout_ != kBlobs) {
    fail(layout_.empty() ? "it has no lanes_layout attribute (not written by the hdf5 output)"
                         : "unknown layout '" + layout_ + "' (known: columns, blobs)");
  }
  ids_ = Id(H5Dopen2(file_.get(), kEventIds, H5P_DEFAULT), &H5Dclose);
  if (ids_.get() < 0) fail(std::string("it has no dataset '") + kEventIds + "': " + takeError());
  events_ = lengthOf(ids_.get(), "cannot read '" + path_ + "'");
  Id products(H5Gopen2(file_.get(), kProducts, H5P_DEFAULT), &H5Gclose);
  if (products.get() < 0) fail(std::string("it has no group '") + kProducts + "': " + takeError());
  for (auto const& label : childrenOf(products.get(), "cannot read '" + path_ + "'")) openProduct(products.get(), label);
}

void Hdf5Source::openProduct(hid_t products, std::string const& label) {
  auto const problem = [&](std::string const& what) { fail("product '" + label + "' " + what); };
  Id group(H5Gopen2(products, label.c_str(), H5P_DEFAULT), &H5Gclose);
  if (group.get() < 0) problem("is not a group: " + takeError());
  Product product;
  product.label = label;
  product.kind = stringAttribute(group.get(), "kind");
  auto const typeName = stringAttribute(group.get(), "type");
  bool const numeric = product.kind == kScalar || product.kind == kVector;
  if (!(numeric && layout_ == kColumns) && product.kind != kBlob) {
    problem("has kind '" + product.kind + "', which a " + layout_ + " file does not hold");
  }
  product.type = rootio::rootTypeNamed(label, typeName);
  product.number = product.kind == kVector ? rootio::fundamentalByArray(rootio::productTypeOf(product.type))
                                           : product.type.fundamental;
  if (numeric && !product.number) problem("has type '" + typeName + "', not a " + product.kind + " of numbers");
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
  if (product.kind == kScalar) {
    if (product.length != events_) problem("has " + std::to_string(product.length) + " values for " + std::to_string(events_) + " events");
  } else {
    product.offsets = dataset(kOffsets);
    auto const offsets = lengthOf(product.offsets.get(), "cannot read product '" + label + "'");
    if (offsets != events_) problem("has " + std::to_string(offsets) + " offsets for " + std::to_string(events_) + " events");
  }
  if (product.kind == kVector) {
    declare({label, product.number->array, {}});
  } else {
    declare({label, rootio::productTypeOf(product.type), product.type.name});
  }
  products_.push_back(std::move(product));
}

bool Hdf5Source::next(SourceEvent& event) {
  if (next_ >= events_) return false;
  if (next_ < idFirst_ || next_ >= idFirst_ + idWindow_.size()) {
    auto const count = std::min(batch_, events_ - next_);
    idWindow_.resize(count);
    auto const lock = lockLibrary();
    readRange(ids_.get(), eventIdType().get(), next_, count, idWindow_.data(), "cannot read '" + path_ + "'");
    idFirst_ = next_;
  }
  auto const& id = idWindow_[next_ - idFirst_];
  event.id = EventId{id.run, id.luminosityBlock, id.event};
  event.entry = next_++;
  return true;
}

bool Hdf5Source::skip(std::uint64_t count) {
  bool const enough = events_ - next_ >= count;
  next_ = enough ? next_ + count : events_;
  return enough;
}

void Hdf5Source::read(SourceEvent const& event, std::size_t index, ProductSlot& slot) {
  auto& product = products_[index];
  if (event.entry < product.first || event.entry >= product.last) load(product, event.entry);
  auto const k = event.entry - product.first;
  if (product.kind == kScalar) {
    product.number->putScalar(product.window.data() + k * product.element, slot, product.element);
    return;
  }
  auto const begin = k == 0 ? product.base : product.ends[k - 1];
  auto const count = product.ends[k] - begin;
  auto const* const at = product.window.data() + (begin - product.base) * product.element;
  if (product.kind == kVector) {
    slot.adopt(product.number->newArray(at, count), product.number->array, count * product.element,
               product.number->deleteArray, nullptr);
    return;
  }
  try {
    rootio::unstreamProduct(reinterpret_cast<char const*>(at), count, product.type, slot);
  } catch (Exception const& error) {
    fail("product '" + product.label + "' of event " + std::to_string(event.entry) + ": " + error.message());
  }
}

void Hdf5Source::load(Product& product, std::uint64_t entry) {
  auto const lock = lockLibrary();
  auto const last = std::min(events_, entry + batch_);
  std::string const what = "cannot read '" + path_ + "': product '" + product.label + "'";
  std::uint64_t from = entry, to = last;
  if (product.kind != kScalar) {
    loadOffsets(product, entry, last);
    from = product.base;
    to = product.ends.back();
  }
  product.window.resize((to - from) * product.element);
  readRange(product.values.get(), product.memoryType, from, to - from, product.window.data(), what);
  product.first = entry;
  product.last = last;
}

void Hdf5Source::loadOffsets(Product& product, std::uint64_t first, std::uint64_t last) {
  std::string const what = "cannot read '" + path_ + "': product '" + product.label + "'";
  // The end of the event before the window is where the window's values begin.
  auto const from = first == 0 ? 0 : first - 1;
  std::vector<std::uint64_t> ends(last - from);
  readRange(product.offsets.get(), H5T_NATIVE_UINT64, from, ends.size(), ends.data(), what);
  product.base = first == 0 ? 0 : ends.front();
  if (first > 0) ends.erase(ends.begin());
  auto previous = product.base;
  for (auto const end : ends) {
    if (end < previous || end > product.length) {
      fail("product '" + product.label + "' has offsets out of order or beyond its " + std::to_string(product.length) +
           " values");
    }
    previous = end;
  }
  product.ends = std::move(ends);
}

namespace {
RegisterSource<Hdf5Source> const registration(
    "hdf5", "reads the events of a file the hdf5 output wrote (either layout) as the products it held: file=PATH, batch=N");
}

}  // namespace lanes::hdf5
