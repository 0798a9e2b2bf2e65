#include "root/NTupleOutput.h"

#include <ROOT/RError.hxx>
#include <ROOT/RFieldBase.hxx>
#include <ROOT/RNTupleFillContext.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleParallelWriter.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <ROOT/RRawPtrWriteEntry.hxx>
#include <tbb/parallel_for_each.h>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/RecordFiles.h"

namespace lanes::rootio {

namespace {

std::unique_ptr<ROOT::RNTupleModel> makeModel(std::vector<Column> const& columns) {
  auto model = ROOT::RNTupleModel::CreateBare();
  model->AddField(ROOT::RFieldBase::Create("run", "std::uint32_t").Unwrap());
  model->AddField(ROOT::RFieldBase::Create("luminosityBlock", "std::uint32_t").Unwrap());
  model->AddField(ROOT::RFieldBase::Create("event", "std::uint64_t").Unwrap());
  for (auto const& column : columns) {
    rethrowingRoot("cannot make a field for product '" + column.label + "' of type '" + column.type.name +
                       "' (leave it out with keep=)",
                   [&] { model->AddField(ROOT::RFieldBase::Create(column.label, column.type.name).Unwrap()); });
  }
  return model;
}

ROOT::RNTupleWriteOptions writeOptions(int compression, std::size_t clusterBytes) {
  ROOT::RNTupleWriteOptions options;
  options.SetCompression(static_cast<std::uint32_t>(compression));
  options.SetApproxZippedClusterSize(clusterBytes);
  return options;
}

}  // namespace

struct NTupleLayout::Filler {
  std::unique_ptr<ROOT::Detail::RRawPtrWriteEntry> entry;
  std::vector<ROOT::RFieldToken> tokens;  // run, luminosityBlock, event, then the columns
  std::shared_ptr<ROOT::RNTupleFillContext> context;  // parallel writer only

  Filler(std::unique_ptr<ROOT::Detail::RRawPtrWriteEntry> e, std::vector<Column> const& columns)
      : entry(std::move(e)) {
    for (auto const* name : kIdColumns) tokens.push_back(entry->GetToken(name));
    for (auto const& column : columns) tokens.push_back(entry->GetToken(column.label));
  }

  // Binds the event's products and its id, then calls fill(entry).
  template <typename Fill>
  void operator()(Event const& event, std::vector<Column> const& columns, Fill fill) {
    auto const& id = event.id();
    entry->BindRawPtr(tokens[0], &id.run);
    entry->BindRawPtr(tokens[1], &id.luminosityBlock);
    entry->BindRawPtr(tokens[2], &id.event);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      entry->BindRawPtr(tokens[3 + i], static_cast<void const*>(rootObjectOf(event.slot(columns[i].index), columns[i].type)));
    }
    rethrowingRoot("cannot write event " + id.str(), [&] { fill(*entry); });
  }
};

NTupleLayout::NTupleLayout(PluginOptions const& checked, std::size_t clusterBytes)
    : file_(checked.forOption("file", [&] { return OutputFile(checked.required("file")); })),
      name_(checked.raw().getString("ntuple", "Events")),
      // zstd: an RNTuple's pages carry a checksum whatever their compression.
      compression_(compressionOption(checked, "zstd")),
      clusterBytes_(checked.positive("cluster", clusterBytes)) {
  initialiseRoot();
}

// ---- rntuple ----

// 32 MiB: the writer compresses its pages as they fill (as tasks, with IMT),
// and its one page buffer holds a cluster. Bigger pages than 8 MiB gave
// 1,900 columns compress better and faster: bench/write_speed.py, 1 / 2
// threads, object branches 1.10 / 1.07x the events/s at 8 MiB and files
// 3.2x smaller, flat NanoAOD 1.08 / 1.10x and 3.2x; 128 MiB was no faster.
constexpr std::size_t kSerialClusterBytes = 32 << 20;
// 8 MiB: a fill context per concurrent write, each with a cluster's pages.
constexpr std::size_t kParallelClusterBytes = 8 << 20;

NTupleOutput::NTupleOutput(std::string label, Options const& options)
    : Output(std::move(label)),
      layout_(PluginOptions(options, "rntuple"), kSerialClusterBytes),
      imt_(options.has("imt") ? std::optional(options.getBool("imt", false)) : std::nullopt) {
  keep(options.getAll("keep"));
}

void NTupleLayout::mergeParts(std::vector<std::string> const& parts, TreeRecords& records) {
  file_.mergeParts(parts, compression_, entries(), [&](std::vector<std::string> const& files) {
    readRecordsOf(files, records, true);
    writeRecordsInto(file_.temporaryPath(), records, true, compression_);
  });
}

void NTupleLayout::commit(TreeRecords const& records, std::uint64_t events) {
  try {
    writeRecordsInto(file_.temporaryPath(), records, true, compression_);
  } catch (Exception const& error) {
    file_.fail(writeFailure(file_.temporaryPath(), error.message()));
  }
  file_.commit(events, entries());
}

EntryCounter NTupleLayout::entries() const {
  return [name = name_](std::string const& path) -> std::optional<std::uint64_t> {
    try {
      return ROOT::RNTupleReader::Open(name, path)->GetNEntries();
    } catch (ROOT::RException const&) {
      return std::nullopt;
    }
  };
}

void NTupleLayout::writing(std::function<void()> const& write) {
  try {
    write();
  } catch (ROOT::RException const& error) {
    file_.fail(writeFailure(file_.temporaryPath(), rootExceptionMessage(error)));
  }
}

NTupleOutput::~NTupleOutput() = default;

void NTupleOutput::beginJob(JobContext const& context) {
  layout_.setColumns(columnsOf(*this, context.registry));
  records_.begin();
  layout_.file().begin(context.part);
  written_ = 0;
  auto model = makeModel(layout_.columns());
  auto options = writeOptions(layout_.compression(), layout_.clusterBytes());
  bool const imt = imt_.value_or(context.threads > 1);
  if (imt) implicitMT_.emplace();  // before the writer, which looks as it is made
  options.SetUseImplicitMT(imt ? ROOT::RNTupleWriteOptions::EImplicitMT::kDefault
                               : ROOT::RNTupleWriteOptions::EImplicitMT::kOff);
  layout_.writing([&] {
    writer_ = ROOT::RNTupleWriter::Recreate(std::move(model), layout_.name(), layout_.file().temporaryPath(), options);
  });
  filler_ = std::make_unique<NTupleLayout::Filler>(writer_->CreateRawPtrWriteEntry(), layout_.columns());
}

void NTupleOutput::write(Event const& event) {
  (*filler_)(event, layout_.columns(), [&](auto& entry) { writer_->Fill(entry); });
  ++written_;
  records_.count(event);
}

void NTupleOutput::writeLumi(Lumi const& lumi) { records_.keep(lumi); }

void NTupleOutput::writeRun(Run const& run) { records_.keep(run); }

void NTupleOutput::endJob() {
  filler_.reset();
  // Committed here: the writer's destructor would only log a failure.
  layout_.writing([&] { writer_->CommitDataset(); });
  writer_.reset();
  implicitMT_.reset();
  layout_.commit(*records_.records(), written_);
}

void NTupleOutput::abandon() {
  filler_.reset();
  try {
    writer_.reset();
  } catch (...) {
    // The file is dropped anyway.
  }
  implicitMT_.reset();
  layout_.file().discard();
}

void NTupleOutput::mergeParts(std::vector<std::string> const& parts) { layout_.mergeParts(parts, records_.begin()); }

void NTupleOutput::discardParts(std::vector<std::string> const& parts) { layout_.file().discardParts(parts); }

std::string NTupleOutput::details() const {
  return recordDetails(fileDetails(layout_.file(), written_), records_.records(), layout_.file().committed());
}

// ---- rntuple-parallel ----

ParallelNTupleOutput::ParallelNTupleOutput(std::string label, Options const& options)
    : ParallelNTupleOutput(std::move(label), options, PluginOptions(options, "rntuple-parallel")) {}

ParallelNTupleOutput::ParallelNTupleOutput(std::string label, Options const& options, PluginOptions const& checked)
    : Output(std::move(label), static_cast<unsigned>(checked.positive("concurrency", 2, PluginOptions::kMaxConcurrency))),
      layout_(checked, kParallelClusterBytes),
      frameworkFlush_(checked.choice("flush", "fill", {"fill", "framework"}) == "framework") {
  keep(options.getAll("keep"));
}

ParallelNTupleOutput::~ParallelNTupleOutput() noexcept { close(); }

void ParallelNTupleOutput::beginJob(JobContext const& context) {
  layout_.setColumns(columnsOf(*this, context.registry));
  records_.begin();
  layout_.file().begin(context.part);
  written_.store(0);
  auto model = makeModel(layout_.columns());
  layout_.writing([&] {
    writer_ = ROOT::RNTupleParallelWriter::Recreate(std::move(model), layout_.name(), layout_.file().temporaryPath(),
                                                    writeOptions(layout_.compression(), layout_.clusterBytes()));
  });
  for (unsigned i = 0; i < concurrencyLimit(); ++i) free_.push(addFiller());
}

void ParallelNTupleOutput::write(Event const& event) const {
  if (flushFailed_.load()) {
    std::lock_guard<std::mutex> lock(flushErrorLock_);
    throw Exception("cannot write '" + layout_.file().path() + "': " + flushError_);
  }
  auto* const filler = takeFiller();
  bool handedOver = false;
  try {
    (*filler)(event, layout_.columns(), [&](auto& entry) {
      ROOT::RNTupleFillStatus status;
      filler->context->FillNoFlush(entry, status);
      if (!status.ShouldFlushCluster()) return;
      if (frameworkFlush_) {
        flushInTask(filler);
        handedOver = true;
        return;
      }
      // Compress the cluster's pages first, in this call's own context; only
      // writing them takes the writer's lock, which every context shares.
      filler->context->FlushColumns();
      filler->context->FlushCluster();
    });
  } catch (...) {
    free_.push(filler);
    throw;
  }
  if (!handedOver) free_.push(filler);
  written_.fetch_add(1, std::memory_order_relaxed);
  records_.count(event);
}

void ParallelNTupleOutput::writeLumi(Lumi const& lumi) const { records_.keep(lumi); }

void ParallelNTupleOutput::writeRun(Run const& run) const { records_.keep(run); }

NTupleLayout::Filler* ParallelNTupleOutput::takeFiller() const {
  NTupleLayout::Filler* filler = nullptr;
  if (free_.try_pop(filler)) return filler;
  // The framework runs at most concurrencyLimit() calls at once, one context
  // each; only flush tasks hold others.
  if (!frameworkFlush_) throw Exception("rntuple-parallel: no free fill context");
  return addFiller();
}

NTupleLayout::Filler* ParallelNTupleOutput::addFiller() const {
  std::lock_guard<std::mutex> lock(fillersLock_);
  auto context = writer_->CreateFillContext();
  auto fresh = std::make_unique<NTupleLayout::Filler>(context->CreateRawPtrWriteEntry(), layout_.columns());
  fresh->context = std::move(context);
  fillers_.push_back(std::move(fresh));
  return fillers_.back().get();
}

void ParallelNTupleOutput::flushInTask(NTupleLayout::Filler* filler) const {
  flushTasks_.fetch_add(1, std::memory_order_relaxed);
  flushes_.run([this, filler] {
    try {
      filler->context->FlushColumns();
      filler->context->FlushCluster();
    } catch (std::exception const& error) {
      std::lock_guard<std::mutex> lock(flushErrorLock_);
      if (!flushFailed_.exchange(true)) flushError_ = writeFailure(layout_.file().temporaryPath(), rootExceptionMessage(error));
    }
    free_.push(filler);
  });
}

void ParallelNTupleOutput::endJob() {
  flushes_.wait();
  if (flushFailed_.load()) layout_.file().fail(flushError_);
  // Every context compresses its last cluster in parallel, on the job's
  // threads (the framework ends outputs inside its arena); committing the
  // clusters takes the writer's lock. Then every context must be gone
  // before the dataset is committed.
  layout_.writing([&] {
    tbb::parallel_for_each(fillers_.begin(), fillers_.end(), [](auto& filler) {
      filler->context->FlushColumns();
      filler->context->FlushCluster();
    });
  });
  free_.clear();
  fillers_.clear();
  // Committed here: the writer's destructor would only log a failure.
  layout_.writing([&] { writer_->CommitDataset(); });
  writer_.reset();
  layout_.commit(*records_.records(), written_.load());
}

void ParallelNTupleOutput::abandon() {
  close();
  layout_.file().discard();
}

void ParallelNTupleOutput::close() {
  flushes_.wait();  // the tasks' exceptions are caught in them
  free_.clear();
  fillers_.clear();
  try {
    writer_.reset();
  } catch (...) {
    // Closing after a failure: the file is dropped anyway.
  }
}

void ParallelNTupleOutput::mergeParts(std::vector<std::string> const& parts) {
  layout_.mergeParts(parts, records_.begin());
}

void ParallelNTupleOutput::discardParts(std::vector<std::string> const& parts) { layout_.file().discardParts(parts); }

std::string ParallelNTupleOutput::details() const {
  auto details = nlohmann::json::parse(
      recordDetails(fileDetails(layout_.file(), written_.load()), records_.records(), layout_.file().committed()));
  if (frameworkFlush_) details["flush_tasks"] = flushTasks_.load();
  return details.dump();
}

namespace {
RegisterOutput<NTupleOutput> const serial(
    "rntuple",
    "writes an RNTuple, a field per product, and the runs and lumis beside it (RNTuples LuminosityBlocks, Runs) "
    "(a one module): file=PATH, ntuple=NAME, compression=, level=, cluster=BYTES (32 MiB), imt=true|false (pages compressed "
    "as tasks on the job's threads; default: true with more than one thread), keep=GLOB");
RegisterOutput<ParallelNTupleOutput> const parallel(
    "rntuple-parallel",
    "writes an RNTuple with RNTupleParallelWriter, a fill context per concurrent call, and the runs and lumis "
    "beside it (RNTuples LuminosityBlocks, Runs) (a limited(N) module): "
    "file=PATH, concurrency=N, flush=fill|framework, ntuple=NAME, compression=, level=, cluster=BYTES (8 MiB a context), "
    "keep=GLOB");
}

}  // namespace lanes::rootio
