#include "root/ParallelTreeOutput.h"

#include <ROOT/TBufferMerger.hxx>
#include <TFile.h>
#include <TMemFile.h>
#include <TTree.h>

#include <nlohmann/json.hpp>
#include <tbb/parallel_for_each.h>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/RecordFiles.h"

namespace lanes::rootio {

// One of two kinds: a TBufferMergerFile merged into the output by
// TBufferMerger, or, for a worker of a shared-writer job, a BatchFile shipped
// to the writer.
struct ParallelTreeOutput::Buffer {
  std::shared_ptr<ROOT::TBufferMergerFile> mergerFile;
  std::unique_ptr<BatchFile> batch;
  TTree* tree = nullptr;  // owned by the file
  std::unique_ptr<TreeFiller> filler;
  std::uint64_t held = 0;  // events filled since the last merge

  // Merges what the buffer holds into the output, or ships it; returns the
  // bytes shipped. Throws if ROOT fails.
  std::size_t merge(std::string const& path) {
    held = 0;
    if (batch) return batch->ship();
    takeRootMessage();
    if (mergerFile->Write() < 0) throw Exception("cannot merge a buffer into '" + path + "': " + takeRootMessage());
    return 0;
  }
};

bool ParallelTreeOutput::FullestFirst::operator()(Buffer const* a, Buffer const* b) const { return a->held < b->held; }

ParallelTreeOutput::ParallelTreeOutput(std::string label, Options const& options)
    : ParallelTreeOutput(std::move(label), options, "parallel-root", 2) {}

ParallelTreeOutput::ParallelTreeOutput(std::string label, Options const& options, std::string const& plugin,
                                       unsigned buffers)
    : ParallelTreeOutput(std::move(label), options, PluginOptions(options, plugin), buffers) {}

ParallelTreeOutput::ParallelTreeOutput(std::string label, Options const& options, PluginOptions const& checked,
                                       unsigned buffers)
    : TreeFileOutput(checked, std::move(label),
                     static_cast<unsigned>(checked.positive("concurrency", buffers, PluginOptions::kMaxConcurrency))),
      settings_{static_cast<int>(checked.positive("basket", 32000)), static_cast<int>(checked.count("split", 99))},
      flushEvents_(checked.positive("flush", 5000)) {
  initialiseRoot();
  keep(options.getAll("keep"));
}

ParallelTreeOutput::~ParallelTreeOutput() { close(); }

void ParallelTreeOutput::beginJob(JobContext const& context) {
  columns_ = columnsOf(*this, context.registry);
  records_.begin();
  written_.store(0);
  merges_.store(0);
  bytesShipped_.store(0);
  shipping_ = static_cast<bool>(context.shipBatch);
  if (!shipping_) {
    file_.begin(context.part);
    takeRootMessage();
    // Opened here: TBufferMerger would go on with a file it failed to create
    // (and crash), or whose header it failed to write.
    std::unique_ptr<TFile> output(TFile::Open(file_.temporaryPath().c_str(), "RECREATE", "", compression_));
    if (!output || output->IsZombie() || !output->IsWritable() || output->TestBit(TFile::kWriteError)) {
      file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
    }
    merger_ = std::make_unique<ROOT::TBufferMerger>(std::move(output));
  }
  for (unsigned i = 0; i < concurrencyLimit(); ++i) {
    auto buffer = std::make_unique<Buffer>();
    TDirectory* directory = nullptr;
    if (shipping_) {
      buffer->batch = std::make_unique<BatchFile>(file_.path(), compression_, flushEvents_, context);
      directory = &buffer->batch->file();
    } else {
      buffer->mergerFile = merger_->GetFile();
      directory = buffer->mergerFile.get();
    }
    buffer->tree = new TTree(treeName_.c_str(), treeName_.c_str());
    buffer->tree->SetDirectory(directory);
    buffer->tree->SetAutoFlush(0);  // a buffer's merge is the cluster boundary
    buffer->filler = std::make_unique<TreeFiller>(*buffer->tree, columns_, settings_);
    free_.push(buffer.get());
    buffers_.push_back(std::move(buffer));
  }
}

void ParallelTreeOutput::write(Event const& event) const {
  Buffer* buffer = nullptr;
  // The framework runs at most concurrencyLimit() calls at once, one buffer each.
  if (!free_.try_pop(buffer)) throw Exception("parallel-root: no free buffer (more concurrent calls than buffers)");
  try {
    auto const bytes = buffer->filler->fill(event);
    ++buffer->held;
    if (buffer->batch ? buffer->batch->add(bytes) : buffer->held >= flushEvents_) merge(*buffer);
  } catch (...) {
    free_.push(buffer);
    throw;
  }
  free_.push(buffer);
  written_.fetch_add(1, std::memory_order_relaxed);
  records_.count(event);
}

void ParallelTreeOutput::writeLumi(Lumi const& lumi) const { records_.keep(lumi); }

void ParallelTreeOutput::writeRun(Run const& run) const { records_.keep(run); }

void ParallelTreeOutput::merge(Buffer& buffer) const {
  bytesShipped_.fetch_add(buffer.merge(file_.path()), std::memory_order_relaxed);
  merges_.fetch_add(1, std::memory_order_relaxed);
}

void ParallelTreeOutput::endJob() {
  // Writing a buffer compresses every basket it has not yet written: most of
  // them, in a short job. The buffers do that in parallel, on the job's
  // threads (the framework ends outputs inside its arena); TBufferMerger
  // serialises only the merging.
  tbb::parallel_for_each(buffers_.begin(), buffers_.end(), [this](auto& buffer) {
    if (buffer->held > 0) merge(*buffer);
  });
  if (shipping_) {
    // The part's records go to the writer in a last batch.
    fillRecordTrees(*records_.records(), buffers_.front()->batch->file(), settings_);
    merge(*buffers_.front());
    return close();
  }
  // An output that got no event still holds its tree, empty, as `root` does.
  if (merges_.load() == 0) merge(*buffers_.front());
  close();
  try {
    writeRecordsInto(file_.temporaryPath(), *records_.records(), false, compression_);
  } catch (Exception const& error) {
    file_.fail(writeFailure(file_.temporaryPath(), error.message()));
  }
  // TBufferMerger reports no failed write: the file read back tells.
  file_.commit(written_.load(), treeEntries(treeName_));
}

void ParallelTreeOutput::abandon() {
  close();
  if (!shipping_) file_.discard();  // a worker that ships has no file, and leaves the writer's alone
}

void ParallelTreeOutput::close() {
  // Buffers go before the merger, which then writes and closes the output.
  free_.clear();
  for (auto& buffer : buffers_) buffer->filler.reset();
  buffers_.clear();  // a BatchFile deletes the tree it holds
  merger_.reset();
}

std::string ParallelTreeOutput::details() const {
  if (auto shared = sharedDetails()) return *shared;
  if (shipping_) return shippedDetails(file_, written_.load(), merges_.load(), bytesShipped_.load());
  auto details = nlohmann::json::parse(recordDetails(fileDetails(file_, written_.load()), records_.records(), file_.committed()));
  details["writer"] = "parallel";
  details["buffers"] = concurrencyLimit();
  details["merges"] = merges_.load();
  return details.dump();
}

namespace {
RegisterOutput<ParallelTreeOutput> const registration(
    "parallel-root",
    "writes a TTree through TBufferMerger from up to N events at once, and the runs and lumis beside it (trees "
    "LuminosityBlocks, Runs) (a limited(N) module): file=PATH, "
    "concurrency=N, flush=EVENTS (a buffer's merge, or a shared-writer job's batch), tree=NAME, compression=, level=, basket=, split=, keep=GLOB");
}

}  // namespace lanes::rootio
