#include "root/NTupleSource.h"

#include <ROOT/RError.hxx>
#include <ROOT/RNTuple.hxx>
#include <ROOT/RNTupleDescriptor.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleReadOptions.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleView.hxx>
#include <TClass.h>
#include <TFile.h>
#include <TKey.h>
#include <TROOT.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <optional>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "lanes/core/ReadingNote.h"
#include "root/Dictionaries.h"
#include "root/EmulatedRecord.h"
#include "root/NTupleFields.h"
#include "root/NTupleLumis.h"
#include "root/RootSupport.h"
#include "root/UnreadableProducts.h"

namespace lanes::rootio {

namespace {

constexpr char const* kIdFields[] = {"run", "luminosityBlock", "event"};

std::string ntupleNames(TFile& file) {
  std::string names;
  for (auto* object : *file.GetListOfKeys()) {
    auto* key = static_cast<TKey*>(object);
    if (std::string(key->GetClassName()) == "ROOT::RNTuple") {
      names += (names.empty() ? "" : ", ") + std::string(key->GetName());
    }
  }
  return names.empty() ? "none" : names;
}

ProductDescription descriptionOf(FieldLayout const& field) {
  if (field.fundamental) return {field.name, field.fundamental->scalar, {}};
  if (field.emulated) return {field.name, typeid(EmulatedRecord), field.readAs};
  return {field.name, *field.cls->GetTypeInfo(), field.cls->GetName()};
}

}  // namespace

struct NTupleSource::Layout {
  Layout(std::vector<std::string> files, UnreadableProducts unreadable)
      : sequence(std::move(files)),
        counts(std::make_shared<EntryCounts>(sequence.files().size())),
        lumis(sequence.files().size()),
        unreadable(std::move(unreadable)) {}

  FileSequence sequence;  // the first file counted: copies count the others as they reach them
  std::shared_ptr<EntryCounts> counts;  // with lumis.index, the parts copies change: thread-safe
  SourceLumis lumis;
  SkippedFiles skipped;
  UnreadableProducts unreadable;  // the selected fields of the first file that cannot be read here
  std::string ntuple;
  std::vector<FieldLayout> fields;  // in product order
  std::vector<std::string> emulated;  // the names of the fields read emulated
  std::vector<FieldLayout> ids;     // run, luminosityBlock, event if all are integers; else none
  ROOT::RNTupleReadOptions options;
  std::uint64_t chunk = 1;  // handles=lane: consecutive entries a lane takes
};

// One opened file: its reader and a view per product (and per id field);
// an emulated product reads through its field of the reader's model instead.
struct NTupleSource::OpenFile {
  std::unique_ptr<TFile> file;
  std::unique_ptr<ROOT::RNTupleReader> reader;
  std::vector<std::array<std::byte, 8>> scalars;  // staging per product, then per id field
  std::vector<std::optional<ROOT::RNTupleView<void>>> views;  // per product (none if emulated), then per id field
  std::vector<ROOT::RFieldBase*> records;         // per product: its emulated field, or nullptr
  std::vector<void*> bound;                       // per product: the object its view reads into
};

namespace {

// The RNTuple `name` of `file`; throws naming the file if it has none.
ROOT::RNTuple& ntupleOf(TFile& file, std::string const& name) {
  auto* ntuple = readObject<ROOT::RNTuple>(file, name, "RNTuple");
  if (!ntuple) {
    throw Exception("'" + std::string(file.GetName()) + "' has no RNTuple '" + name + "' (its RNTuples: " +
                    ntupleNames(file) + ")");
  }
  return *ntuple;
}

// The reader of the RNTuple `name` in `file`, with errors that name the
// file. Its model holds the `emulated` fields alone: a model of every field
// would make them all, and a field ROOT cannot make kills the process
// (unreadableFields()).
std::unique_ptr<ROOT::RNTupleReader> openReader(TFile& file, std::string const& name,
                                                ROOT::RNTupleReadOptions const& options,
                                                std::vector<std::string> const& emulated = {}) {
  auto& ntuple = ntupleOf(file, name);
  try {
    ReadingScope const reading({file.GetName(), "RNTuple", name.c_str()});
    ThrowOnRootFatal const guard;
    auto reader = ROOT::RNTupleReader::Open(ntuple, options);
    if (emulated.empty()) return reader;
    auto model = ROOT::RNTupleModel::CreateBare();
    for (auto const& field : emulated) model->AddField(emulatedField(reader->GetDescriptor(), field));
    return ROOT::RNTupleReader::Open(std::move(model), ntuple, options);
  } catch (ROOT::RException const& error) {
    throw Exception("cannot read RNTuple '" + name + "' in '" + file.GetName() + "': " + rootExceptionMessage(error));
  } catch (Exception const& fatal) {
    throw Exception("cannot read RNTuple '" + name + "' in '" + file.GetName() + "': " + fatal.message());
  }
}

// The distinct types of the `fields` read emulated.
std::vector<std::string> emulatedTypes(std::vector<FieldLayout> const& fields) {
  std::vector<std::string> types;
  for (auto const& field : fields) {
    if (field.emulated && std::find(types.begin(), types.end(), field.readAs) == types.end()) types.push_back(field.readAs);
  }
  return types;
}

// The field of the reader's model that reads the emulated field `name`
// (connected to the reader's pages: values read through it read the file).
ROOT::RFieldBase& emulatedFieldOf(ROOT::RNTupleReader& reader, std::string const& name) {
  // Reading through a field changes it: the model is const to users who would fill it.
  return const_cast<ROOT::RFieldBase&>(reader.GetModel().GetConstField(name));
}

// The entries of the RNTuple's first cluster, which no other cluster's pages
// hold. At least 1.
std::uint64_t firstClusterEntries(ROOT::RNTupleDescriptor const& descriptor) {
  for (auto const& cluster : descriptor.GetClusterIterable()) {
    if (cluster.GetFirstEntryIndex() == 0) return std::max<std::uint64_t>(1, cluster.GetNEntries());
  }
  return 1;
}

// The selected typed top-level fields of `descriptor` as products, and the
// id fields if it has all of them as integers, into `layout`.
void describeFields(ROOT::RNTupleDescriptor const& descriptor, std::vector<std::string> const& include,
                    std::vector<std::string> const& exclude, NTupleSource::Layout& layout) {
  std::vector<FieldLayout> ids(std::size(kIdFields));
  std::size_t found = 0;
  std::vector<std::string> names;
  for (auto const& field : descriptor.GetFieldIterable(descriptor.GetFieldZeroId())) {
    names.push_back(field.GetFieldName());
  }
  requireMatches("fields", include, names, "field");
  requireMatches("exclude", exclude, names, "field");
  for (auto const& field : descriptor.GetFieldIterable(descriptor.GetFieldZeroId())) {
    auto const& name = field.GetFieldName();
    // Untyped records (an importer's parents of projected fields) are no
    // products; their projections are.
    if (field.GetTypeName().empty()) continue;
    auto const id = std::find(std::begin(kIdFields), std::end(kIdFields), name) - std::begin(kIdFields);
    if (id < static_cast<std::ptrdiff_t>(std::size(kIdFields))) {
      auto const* integer = fundamentalByNtupleName(field.GetTypeName());
      if (integer && integer->size >= 4 && integer->scalar != typeid(float) && integer->scalar != typeid(double)) {
        ids[id] = {name, field.GetTypeName(), integer};
        ++found;
      }
      continue;
    }
    if (selectedName(name, include, exclude)) layout.fields.push_back(layoutOf(name, field.GetTypeName()));
  }
  if (found == std::size(kIdFields)) layout.ids = std::move(ids);
}

// Takes the fields of `layout` that cannot be read here out of it, and
// refuses the job naming them, unless unreadable=skip.
void leaveOutUnreadable(TFile& file, ROOT::RNTupleReader& reader, NTupleSource::Layout& layout) {
  ReadingScope const reading({file.GetName(), "RNTuple", layout.ntuple.c_str()});
  auto const problems = unreadableFields(ntupleOf(file, layout.ntuple), reader, layout.fields,
                                         static_cast<std::uint64_t>(file.GetSize()));
  std::vector<std::string> readable;
  std::vector<FieldLayout> kept;
  for (auto& field : layout.fields) {
    if (auto const problem = problems.find(field.name); problem != problems.end()) {
      layout.unreadable.add(field.name, problem->second);
    } else {
      readable.push_back(field.name);
      kept.push_back(std::move(field));
    }
  }
  for (auto const& id : layout.ids) readable.push_back(id.name);
  layout.unreadable.refuseOrSkip("'" + std::string(file.GetName()) + "': RNTuple '" + layout.ntuple + "'", readable);
  layout.fields = std::move(kept);
  for (auto const& field : layout.fields) {
    if (field.emulated) layout.emulated.push_back(field.name);
  }
}

}  // namespace

NTupleSource::NTupleSource(Options const& options) : NTupleSource(options, PluginOptions(options, "rntuple")) {}

NTupleSource::NTupleSource(Options const& options, PluginOptions const& checked) {
  initialiseRoot();
  auto layout = std::make_shared<Layout>(inputFiles(checked), UnreadableProducts(checked, "field"));
  layout->ntuple = options.getString("ntuple", "Events");
  auto const include = options.getAll("fields");
  auto const exclude = options.getAll("exclude");
  perLane_ = checked.choice("handles", "lane", {"shared", "lane"}) == "lane";
  using Options = ROOT::RNTupleReadOptions;
  layout->options.SetClusterCache(options.getBool("cache", true) ? Options::EClusterCache::kOn
                                                                 : Options::EClusterCache::kOff);
  bool const imt = options.getBool("imt", false);
  layout->options.SetUseImplicitMT(imt ? Options::EImplicitMT::kDefault : Options::EImplicitMT::kOff);
  if (imt) ROOT::EnableImplicitMT();

  // The first file gives the layout; the others are only checked to be
  // readable now, and counted when a copy reaches them (as the root source
  // does: opening a file is most of a long list's start-up), unless bad
  // files are skipped: then all are opened now.
  auto const& files = layout->sequence.files();
  bool const skipBad = options.getBool("skip-bad-files", false);
  if (!skipBad) {
    for (auto const& path : files) {
      if (&path != &files.front()) requireReadable(path);
    }
  }
  std::unique_ptr<TFile> file;
  std::unique_ptr<ROOT::RNTupleReader> reader;
  auto const first = openFirstReadable(files, skipBad ? &layout->skipped : nullptr, [&](std::size_t index) {
    file = openInputFile(files[index]);
    reader = openReader(*file, layout->ntuple, layout->options);
  });
  auto const describe = [&] {
    layout->fields.clear();
    try {
      describeFields(reader->GetDescriptor(), include, exclude, *layout);
    } catch (Exception const& error) {
      throw Exception("'" + files[first] + "': " + error.message());
    }
  };
  describe();
  auto const emulated = emulatedTypes(layout->fields);
  if (auto const dictionaries = options.getString("dictionaries"); dictionaries && !emulated.empty()) {
    loadDictionaries(*file, emulated, *dictionaries);
    describe();  // the types have their dictionaries now
  }
  leaveOutUnreadable(*file, *reader, *layout);
  layout->chunk = checked.positive("chunk", firstClusterEntries(reader->GetDescriptor()));
  for (std::size_t skipped = 0; skipped < first; ++skipped) {
    layout->counts->learn(skipped, 0);
    layout->sequence.addEntries(0);
  }
  layout->counts->learn(first, reader->GetNEntries());
  layout->sequence.addEntries(reader->GetNEntries());
  sequence_ = layout->sequence;
  for (auto const& field : layout->fields) declare(descriptionOf(field));
  layout_ = layout;
  makePools();
  if (skipBad) {  // open() reads the layout_ just set
    countOrSkip(files, first + 1, *layout->counts, layout->skipped,
                [this](std::size_t index) { return open(index)->reader->GetNEntries(); });
  }
  layout->lumis.setUp(files, layout->skipped, layout->ntuple,
                      [&](char const* name) { return ntupleRecordColumns(*file, name); });
  declareRecords();
  if (!layout->lumis.records.empty()) readAllLumis(*layout, first);
}

NTupleSource::NTupleSource(std::shared_ptr<Layout const> layout)
    : layout_(std::move(layout)), sequence_(layout_->sequence), perLane_(true) {
  for (auto const& field : layout_->fields) declare(descriptionOf(field));
  declareRecords();
  makePools();
}

void NTupleSource::declareRecords() {
  for (auto& description : layout_->lumis.records.descriptions(Level::Lumi)) declareLumiProduct(std::move(description));
  for (auto& description : layout_->lumis.records.descriptions(Level::Run)) declareRunProduct(std::move(description));
}

void NTupleSource::readAllLumis(Layout& layout, std::size_t first) {
  auto const& files = layout.sequence.files();
  for (auto index = first; index < files.size(); ++index) {
    if (layout.skipped.contains(files[index])) continue;
    auto const file = open(index);
    originFile_ = index;
    auto& records = layout.lumis.records;
    records.count(layout.lumis.index->of(index, [&] { return lumisIn(*file, layout.lumis.rows()); }));
    addNTupleRecords(*file->file, records);
  }
}

FileLumis NTupleSource::lumisIn(OpenFile& file, LumiRows rows) const {
  auto const lumiOf = [&](std::uint64_t entry) {
    if (layout_->ids.empty()) return LumiNumber{1, 1};
    return LumiNumber{static_cast<std::uint32_t>(idOf(file, 0, entry)), static_cast<std::uint32_t>(idOf(file, 1, entry))};
  };
  return ntupleLumis(*file.file, layout_->ntuple, file.reader->GetNEntries(), lumiOf, rows);
}

FileLumis const& NTupleSource::lumisOf(std::size_t index) {
  return layout_->lumis.index->of(index, [&] {
    auto& file = open_.get(index, [this](std::size_t i) { return open(i); });
    originFile_ = index;
    return lumisIn(file, layout_->lumis.rows());
  });
}

std::optional<LumiStretch> NTupleSource::stretchAt(std::uint64_t ordinal) {
  return stretchOf(
      sequence_, ordinal, [this](std::size_t file) -> FileLumis const& { return lumisOf(file); },
      [this](std::uint64_t entry) { return reach(entry); });
}

void NTupleSource::readRun(std::uint32_t run, ProductSlot* slots) {
  layout_->lumis.records.read(Level::Run, {run, 0}, slots);
}

void NTupleSource::readLumi(LumiNumber lumi, ProductSlot* slots) { layout_->lumis.records.read(Level::Lumi, lumi, slots); }

void NTupleSource::makePools() {
  for (auto const& field : layout_->fields) {
    pools_.push_back(field.cls && !field.emulated ? ObjectPool::make(field.cls) : nullptr);  // emulated: read as records
  }
}

NTupleSource::~NTupleSource() = default;

void NTupleSource::beforeFork() { open_.clear(); }

std::string NTupleSource::origin() const { return layout_->sequence.files()[originFile_]; }

std::string NTupleSource::details() const {
  auto details = layout_->unreadable.details();
  for (auto const& part : {layout_->skipped.details(), layout_->lumis.records.details()}) {
    if (!part.empty()) details.update(nlohmann::json::parse(part));
  }
  return details.empty() ? std::string() : details.dump();
}

std::vector<std::string> NTupleSource::fileList() const { return layout_->sequence.files(); }

// Counted into the counts every copy shares, so that no copy opens the file to move past it; kept open
// (a shared source reads it next, as when reach() counts it).
std::uint64_t NTupleSource::fileEntries(std::size_t file) {
  if (auto const known = layout_->counts->known(file)) return *known;
  auto const entries = open_.get(file, [this](std::size_t i) { return open(i); }).reader->GetNEntries();
  layout_->counts->learn(file, entries);
  return entries;
}

void NTupleSource::learnFileEntries(std::size_t file, std::uint64_t entries) { layout_->counts->learn(file, entries); }

std::unique_ptr<Source> NTupleSource::lookAhead() const { return std::unique_ptr<Source>(new NTupleSource(layout_)); }

std::unique_ptr<Source> NTupleSource::replicate() const {
  if (!perLane_) return nullptr;
  return std::unique_ptr<Source>(new NTupleSource(layout_));
}

bool NTupleSource::next(SourceEvent& event) { return position(nextEntry_++, event); }

bool NTupleSource::skip(std::uint64_t count) {
  if (count > 0) reach(nextEntry_ + count - 1);
  return sequence_.skip(nextEntry_, count);
}

bool NTupleSource::reach(std::uint64_t entry) {
  return sequence_.reach(entry, *layout_->counts, [this](std::size_t index) {
    originFile_ = index;
    // Opened for good: this copy reads it next.
    return open_.get(index, [this](std::size_t i) { return open(i); }).reader->GetNEntries();
  });
}

bool NTupleSource::at(std::uint64_t ordinal, SourceEvent& event) { return position(ordinal, event); }

std::uint64_t NTupleSource::replicaChunk() const { return layout_->chunk; }

std::optional<std::uint64_t> NTupleSource::eventCount() const {
  return sequence_.counted() ? std::optional<std::uint64_t>(sequence_.entries()) : std::nullopt;
}

bool NTupleSource::position(std::uint64_t entry, SourceEvent& event) {
  if (!reach(entry)) return false;
  event.entry = entry;
  if (layout_->ids.empty()) {
    event.id = {1, 1, entry + 1};
    return true;
  }
  auto [file, local] = fileOf(entry);
  event.id = {static_cast<std::uint32_t>(idOf(file, 0, local)), static_cast<std::uint32_t>(idOf(file, 1, local)),
              idOf(file, 2, local)};
  return true;
}

std::uint64_t NTupleSource::idOf(OpenFile& file, std::size_t id, std::uint64_t local) const {
  auto const at = layout_->fields.size() + id;
  try {
    ReadingScope const reading(noteOf(kIdFields[id], local));
    ThrowOnRootFatal const guard;
    (*file.views[at])(local);
  } catch (ROOT::RException const& error) {
    throw readError(kIdFields[id], local, rootExceptionMessage(error));
  } catch (Exception const& fatal) {
    throw readError(kIdFields[id], local, fatal.message());
  }
  // Ids are non-negative integers of 32 or 64 bits: the low bytes of a uint64 (little-endian).
  std::uint64_t value = 0;
  std::memcpy(&value, file.scalars[at].data(), layout_->ids[id].fundamental->size);
  return value;
}

void NTupleSource::read(SourceEvent const& event, std::size_t product, ProductSlot& slot) {
  auto [file, local] = fileOf(event.entry);
  readProduct(file, local, product, slot);
}

void NTupleSource::readProducts(SourceEvent const& event, ProductIndex const* products, std::size_t count,
                                ProductSlot* slots) {
  auto [file, local] = fileOf(event.entry);
  for (std::size_t i = 0; i < count; ++i) readProduct(file, local, products[i], slots[products[i]]);
}

void NTupleSource::readProduct(OpenFile& file, std::uint64_t local, std::size_t product, ProductSlot& slot) {
  auto const& field = layout_->fields[product];
  if (field.emulated) return readRecord(*file.records[product], local, slot);
  auto& view = *file.views[product];
  // The object the slot held for its lane's last event, else one of the
  // field's pool: reading into it keeps its allocations.
  auto* pool = pools_[product].get();
  void* object = nullptr;
  if (pool && !(object = pool->reclaim(slot))) object = pool->take();
  try {
    ReadingScope const reading(noteOf(field.name.c_str(), local));
    ThrowOnRootFatal const guard;
    // Binding makes a shared_ptr: only when the object changes (a lane's own copy reads into one).
    if (object && std::exchange(file.bound[product], object) != object) view.BindRawPtr(object);
    view(local);
  } catch (ROOT::RException const& error) {
    if (pool) pool->putBack(object);
    throw readError(field.name, local, rootExceptionMessage(error));
  } catch (Exception const& fatal) {
    if (pool) pool->discard(object);  // the object may be half-built: neither reused nor destroyed
    throw readError(field.name, local, fatal.message());
  }
  if (pool) {
    pool->lend(object, field.cls->Size(), slot);
  } else {
    field.fundamental->putScalar(file.scalars[product].data(), slot, field.fundamental->size);
  }
}

void NTupleSource::readRecord(ROOT::RFieldBase& field, std::uint64_t entry, ProductSlot& slot) const {
  auto value = field.CreateValue();
  try {
    ReadingScope const reading(noteOf(field.GetFieldName().c_str(), entry));
    ThrowOnRootFatal const guard;
    value.Read(entry);
  } catch (ROOT::RException const& error) {
    throw readError(field.GetFieldName(), entry, rootExceptionMessage(error));
  } catch (Exception const& fatal) {
    throw readError(field.GetFieldName(), entry, fatal.message());
  }
  slot.emplace(EmulatedRecord(value.GetPtr<void>()), field.GetValueSize());
}

Exception NTupleSource::readError(std::string const& field, std::uint64_t entry, std::string const& why) const {
  return Exception("cannot read field '" + field + "' of entry " + std::to_string(entry) + " in '" + origin() +
                   "': " + why);
}

ReadingNote NTupleSource::noteOf(char const* field, std::uint64_t entry) const {
  return {layout_->sequence.files()[originFile_].c_str(), "RNTuple", layout_->ntuple.c_str(), "field", field,
          static_cast<std::int64_t>(entry)};
}

std::pair<NTupleSource::OpenFile&, std::uint64_t> NTupleSource::fileOf(std::uint64_t entry) {
  auto const located = open_.locate(sequence_, entry, [this](std::size_t i) { return open(i); });
  originFile_ = located.index;
  return {located.file, located.entry};
}

std::unique_ptr<NTupleSource::OpenFile> NTupleSource::open(std::size_t index) const {
  auto const& path = layout_->sequence.files()[index];
  auto file = std::make_unique<OpenFile>();
  auto opening = layout_->counts->opening(index);
  file->file = openInputFile(path);
  // One lane at a time builds a reader's fields: ROOT makes the class of a
  // map's std::pair on first use, and a second lane that races it finds the
  // class without its members ("first: no such member").
  static std::mutex fieldsBeingMade;
  std::lock_guard<std::mutex> const oneAtATime(fieldsBeingMade);
  file->reader = openReader(*file->file, layout_->ntuple, layout_->options, layout_->emulated);
  layout_->counts->learn(index, file->reader->GetNEntries());
  if (opening) opening.unlock();
  ReadingScope const reading({path.c_str(), "RNTuple", layout_->ntuple.c_str()});
  auto const& fields = layout_->fields;
  auto const& ids = layout_->ids;
  file->scalars.resize(fields.size() + ids.size());
  file->records.resize(fields.size());
  file->bound.resize(fields.size());
  auto makeView = [&](std::string const& name, std::string const& type, void* target) {
    try {
      file->views.push_back(file->reader->GetView(name, target, type));
    } catch (ROOT::RException const& error) {
      throw Exception("cannot read field '" + name + "' as '" + type + "' in '" + path + "': " + rootExceptionMessage(error));
    }
  };
  for (std::size_t p = 0; p < fields.size(); ++p) {
    if (fields[p].emulated) {
      file->records[p] = &emulatedFieldOf(*file->reader, fields[p].name);
      file->views.emplace_back();
    } else {
      makeView(fields[p].name, fields[p].readAs, fields[p].cls ? nullptr : file->scalars[p].data());
    }
  }
  for (std::size_t i = 0; i < ids.size(); ++i) makeView(ids[i].name, ids[i].readAs, file->scalars[fields.size() + i].data());
  return file;
}

namespace {
RegisterSource<NTupleSource> const registration(
    "rntuple",
    "reads an RNTuple, every top-level field a product read on demand, and the run and lumi products of the "
    "RNTuples Runs and LuminosityBlocks: file=PATH (repeatable) or files=LIST, "
    "ntuple=NAME (Events), fields=GLOB, exclude=GLOB, handles=lane|shared (lane, the default: each lane reads "
    "with file handles of its own, so threads read concurrently; shared: one set, each event read whole as it is "
    "fetched, by one thread at a time), chunk=N, "
    "cache=true|false, imt=true|false, "
    "skip-bad-files=true|false (go on past a listed file that cannot be read or lacks the RNTuple, naming it), "
    "unreadable=refuse|skip (fields that cannot be read here, found before the job: refuse names them and the exclude= "
    "globs that leave them out; skip reads the rest and lists them), "
    "dictionaries=DIR (build and cache dictionaries for the classes it can only read emulated, so outputs can write them)");
}

}  // namespace lanes::rootio
