#include "pds/PdsSource.h"

#include <algorithm>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/InputBlocks.h"

namespace lanes::pds {

// What every copy of the source shares: the file's products and records.
struct PdsSource::Layout {
  std::string path;
  rootio::FrameLevel level = rootio::FrameLevel::Event;
  std::vector<rootio::StoredProduct> products;
  std::vector<TClass*> classes;  // of the products (classesOf())
  std::vector<RecordPlace> records;  // the event records
  rootio::InputBlocks blocks;
  std::uint64_t events = 0;
  std::uint64_t chunk = 1;
  bool perLane = false;
};

PdsSource::PdsSource(Options const& options) : PdsSource(options, PluginOptions(options, "pds")) {}

PdsSource::PdsSource(Options const&, PluginOptions const& checked) {
  rootio::initialiseRoot();
  auto layout = std::make_shared<Layout>();
  layout->path = checked.required("file");
  layout->perLane = checked.choice("handles", "shared", {"shared", "lane"}) == "lane";
  checked.forOption("file", [&] {
    file_ = std::make_unique<PdsFile>(layout->path);
    auto const header = file_->readHeader();
    rootio::SerializationKind kind{};
    try {
      kind = rootio::parseSerialization(header.serialization);
      layout->level = rootio::parseFrameLevel(header.compress);
    } catch (Exception const& error) {
      file_->fail("its header is malformed: " + error.message());
    }
    for (auto const& [label, type] : header.products) {
      layout->products.push_back(rootio::storedProduct(layout->path, label, type, kind));
    }
    layout->classes = rootio::classesOf(layout->products);
    auto const places = file_->scan();
    std::vector<std::uint32_t> runs, lumis;
    for (auto const& place : places) {
      if (place.events == 0) continue;  // a block record
      layout->records.push_back(place);
      layout->events += place.events;
      runs.clear();
      lumis.clear();
      file_->readIds(place, runs, lumis);
      layout->blocks.addEvents(runs.data(), lumis.data(), runs.size());
    }
    layout->blocks.addRecords(file_->readBlockRecords(header, places), layout->path, kind);
    layout->blocks.finish();
  });
  layout->chunk = checked.positive("chunk", layout->records.empty() ? 1 : layout->records.front().events);
  layout_ = std::move(layout);
  declareProducts();
}

PdsSource::PdsSource(std::shared_ptr<Layout const> layout)
    : layout_(std::move(layout)), file_(std::make_unique<PdsFile>(layout_->path)) {
  declareProducts();
}

PdsSource::~PdsSource() = default;

void PdsSource::declareProducts() {
  for (auto const& product : layout_->products) declare(product.description);
  for (auto const& description : layout_->blocks.products(Level::Lumi)) declareLumiProduct(description);
  for (auto const& description : layout_->blocks.products(Level::Run)) declareRunProduct(description);
}

std::unique_ptr<Source> PdsSource::lookAhead() const { return std::unique_ptr<Source>(new PdsSource(layout_)); }

std::unique_ptr<Source> PdsSource::replicate() const {
  if (!layout_->perLane) return nullptr;
  return std::unique_ptr<Source>(new PdsSource(layout_));
}

std::uint64_t PdsSource::replicaChunk() const { return layout_->chunk; }

std::optional<std::uint64_t> PdsSource::eventCount() const { return layout_->events; }

std::string PdsSource::origin() const { return layout_->path; }

std::optional<LumiStretch> PdsSource::stretchAt(std::uint64_t ordinal) {
  auto stretch = layout_->blocks.stretchAt(ordinal);
  // The ids were read without the checksum: one damaged into run or lumi 0
  // is found as its record's damage, where the job would see only a number 0.
  if (stretch.first != stretch.end && (stretch.lumi.run == 0 || stretch.lumi.luminosityBlock == 0)) {
    load(recordOf(stretch.first));
  }
  return stretch;
}

void PdsSource::readRun(std::uint32_t run, ProductSlot* slots) { layout_->blocks.read(Level::Run, {run, 0}, slots); }

void PdsSource::readLumi(LumiNumber lumi, ProductSlot* slots) { layout_->blocks.read(Level::Lumi, lumi, slots); }

bool PdsSource::next(SourceEvent& event) { return position(next_++, event); }

bool PdsSource::skip(std::uint64_t count) {
  bool const reached = count <= layout_->events - next_;
  next_ = reached ? next_ + count : layout_->events;
  return reached;
}

bool PdsSource::at(std::uint64_t ordinal, SourceEvent& event) { return position(ordinal, event); }

bool PdsSource::position(std::uint64_t ordinal, SourceEvent& event) {
  auto objects = events_.next(event.entry, layout_->classes);  // the lane has finished the event of event.entry
  event.entry = 0;
  if (ordinal >= layout_->events) return false;
  auto const record = recordOf(ordinal);
  auto stored = std::make_unique<rootio::StoredEvent>(load(record), ordinal - layout_->records[record].first,
                                                      layout_->products.size(), std::move(objects));
  event.id = rootio::idOf(*stored);
  event.entry = events_.hold(std::move(stored));
  return true;
}

std::size_t PdsSource::recordOf(std::uint64_t ordinal) const {
  auto const& records = layout_->records;
  auto const found = std::upper_bound(records.begin(), records.end(), ordinal,
                                      [](std::uint64_t o, RecordPlace const& place) { return o < place.first; });
  return static_cast<std::size_t>(found - records.begin()) - 1;
}

std::shared_ptr<rootio::StoredBatch> PdsSource::load(std::size_t record) {
  if (loaded_ && loaded_->index == record) return loaded_;
  auto stored = std::make_shared<rootio::StoredBatch>();
  stored->index = record;
  stored->batch = file_->readRecord(record, layout_->records[record], layout_->products.size());
  loaded_ = std::move(stored);
  return loaded_;
}

void PdsSource::read(SourceEvent const& event, std::size_t product, ProductSlot& slot) {
  auto& stored = rootio::HeldEvents<rootio::StoredEvent>::of(event);
  auto const& products = layout_->products;
  try {
    rootio::readStoredProduct(stored, layout_->level, product, *products[product].serializer, slot);
  } catch (Exception const& error) {
    file_->fail("record " + std::to_string(stored.batch->index) + ": product '" + products[product].description.label +
                "' of event " + event.id.str() + ": " + error.message());
  }
}

namespace {
RegisterSource<PdsSource> const registration(
    "pds",
    "reads a pds file: one shared handle reads each record (or one per lane, handles=lane), the lanes open "
    "frames and deserialise products concurrently: file=PATH, handles=shared|lane, chunk=EVENTS",
    {{"file", FileAccess::Read}});
}

}  // namespace lanes::pds
