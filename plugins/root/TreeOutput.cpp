#include "root/TreeOutput.h"

#include <TFile.h>
#include <TMemFile.h>
#include <TTree.h>

#include <nlohmann/json.hpp>
#include <tbb/task_arena.h>

#include <algorithm>
#include <optional>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/ParallelTreeOutput.h"
#include "root/RecordFiles.h"

namespace lanes::rootio {

TreeOutput::TreeOutput(std::string label, Options const& options)
    : TreeOutput(std::move(label), options, PluginOptions(options, "root")) {}

TreeOutput::TreeOutput(std::string label, Options const& options, PluginOptions const& checked)
    : TreeFileOutput(checked, std::move(label)),
      settings_{static_cast<int>(checked.positive("basket", 32000)), static_cast<int>(checked.count("split", 99))},
      autoFlush_(options.getInt("autoflush", -30000000)),
      flushEvents_(checked.positive("flush", 5000)),
      imt_(options.has("imt") ? std::optional(options.getBool("imt", false)) : std::nullopt) {
  initialiseRoot();
  keep(options.getAll("keep"));
}

TreeOutput::~TreeOutput() { close(); }

void TreeOutput::beginJob(JobContext const& context) {
  columns_ = columnsOf(*this, context.registry);
  records_.begin();
  written_ = batchesShipped_ = bytesShipped_ = 0;
  shipping_ = static_cast<bool>(context.shipBatch);
  // A shared-writer job's writer merges the shipped batches on a thread of
  // its own. With IMT on the job's threads, ROOT flushes the merged tree with
  // tasks in the job's arena, whose threads may all be waiting for that
  // writer to take their batches: the job would hang. So no IMT there.
  if (shipping_ && imt_.value_or(false)) {
    throw Exception("root output '" + label() + "': imt=true cannot be used in a shared-writer job (its writer "
                    "merges the batches outside the job's threads, which would wait for it)");
  }
  if (imt_.value_or(context.threads > 1 && !shipping_)) implicitMT_.emplace();  // before the tree, which looks as it is made
  TDirectory* directory = nullptr;
  if (shipping_) {
    // A worker of a shared-writer job: batches in memory, a cluster each.
    batch_ = std::make_unique<BatchFile>(file_.path(), compression_, flushEvents_, context);
    directory = &batch_->file();
  } else {
    file_.begin(context.part);
    takeRootMessage();
    rootFile_.reset(TFile::Open(file_.temporaryPath().c_str(), "RECREATE", "", compression_));
    if (!rootFile_ || rootFile_->IsZombie() || rootFile_->TestBit(TFile::kWriteError)) {
      file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
    }
    directory = rootFile_.get();
  }
  tree_ = new TTree(treeName_.c_str(), treeName_.c_str());
  tree_->SetDirectory(directory);
  tree_->SetAutoFlush(batch_ ? 0 : autoFlush_);
  filler_ = std::make_unique<TreeFiller>(*tree_, columns_, settings_);
}

void TreeOutput::write(Event const& event) {
  auto const fill = [&] {
    try {
      auto const bytes = filler_->fill(event);
      if (batch_ && batch_->add(bytes)) ship();
    } catch (Exception const&) {
      // A basket the file could not take: say why, in one line.
      if (rootFile_ && rootFile_->TestBit(TFile::kWriteError)) file_.fail(writeFailure(file_.temporaryPath(), {}));
      throw;
    }
  };
  if (implicitMT_) {
    tbb::this_task_arena::isolate(fill);
  } else {
    fill();
  }
  ++written_;
  records_.count(event);
}

void TreeOutput::writeLumi(Lumi const& lumi) { records_.keep(lumi); }

void TreeOutput::writeRun(Run const& run) { records_.keep(run); }

void TreeOutput::ship() {
  bytesShipped_ += batch_->ship();
  ++batchesShipped_;
}

void TreeOutput::endJob() {
  if (batch_) {
    // The last events with the part's records (even with no event: the
    // writer's file holds the tree, as `root` writes it).
    fillRecordTrees(*records_.records(), batch_->file(), settings_);
    ship();
    close();
    return;
  }
  writeTrees();
  file_.commit(written_, treeEntries(treeName_));
}

void TreeOutput::writeTrees() {
  rootFile_->cd();
  takeRootMessage();
  bool const written = tree_->Write() > 0;
  auto const message = takeRootMessage();
  std::optional<std::string> records;  // why the records could not be written
  try {
    writeRecordTrees(*records_.records(), *rootFile_, settings_);
  } catch (Exception const& error) {
    records = error.message();
  }
  bool const intact = close();
  if (!intact || !written) file_.fail(writeFailure(file_.temporaryPath(), message));
  if (records) file_.fail(writeFailure(file_.temporaryPath(), *records));
}

void TreeOutput::abandon() {
  close();
  if (!shipping_) file_.discard();  // a worker that ships has no file, and leaves the writer's alone
}

bool TreeOutput::close() {
  filler_.reset();
  bool intact = true;
  if (rootFile_) {
    rootFile_->Close();
    intact = !rootFile_->TestBit(TFile::kWriteError);
  }
  rootFile_.reset();
  batch_.reset();  // deletes the tree it holds
  tree_ = nullptr;
  implicitMT_.reset();
  return intact;
}

std::string TreeOutput::details() const {
  if (auto shared = sharedDetails()) return *shared;
  if (shipping_) return shippedDetails(file_, written_, batchesShipped_, bytesShipped_);
  auto details =
      nlohmann::json::parse(recordDetails(fileDetails(file_, written_), records_.records(), file_.committed()));
  details["writer"] = "serial";
  return details.dump();
}

namespace {

// The `root` output's writer for a job. With one lane, or one thread, one
// TTree filled an event at a time (TreeOutput). With several of both, that
// TTree::Fill would be the job's serial part (83 us an event of the 944
// object branches, docs/benchmarks.md): events fill buffers at once and
// TBufferMerger merges them (ParallelTreeOutput, as `parallel-root`), a
// buffer for each thread that can write. writer=serial|parallel chooses
// either; imt= and autoflush= are the serial writer's options and
// concurrency= the parallel one's, so each also chooses its writer.
std::unique_ptr<OutputModule> makeRootOutput(std::string const& label, Options const& options, JobShape const& job) {
  PluginOptions const checked(options, "root");
  auto const writer = checked.choice("writer", "auto", {"auto", "serial", "parallel"});
  auto const serialOption = options.has("imt") ? "imt" : options.has("autoflush") ? "autoflush" : nullptr;
  bool const parallelOption = options.has("concurrency");
  if (serialOption && (writer == "parallel" || parallelOption)) {
    checked.fail(serialOption, "is the serial writer's (writer=serial), not the parallel one's");
  }
  if (parallelOption && writer == "serial") {
    checked.fail("concurrency", "is the parallel writer's (writer=parallel), not the serial one's");
  }
  auto const writers = std::min(job.threads, job.lanes);
  bool const parallel = writer == "parallel" || (writer == "auto" && !serialOption && (parallelOption || writers > 1));
  if (!parallel) return constructModule<TreeOutput>(label, options);
  return constructModule<ParallelTreeOutput>(label, options, "root", std::max(1u, writers));
}

struct RegisterRootOutput {
  RegisterRootOutput() {
    PluginRegistry::instance().addOutputForJob(
        {"root",
         "writes a TTree, a branch per product, and the runs and lumis beside it (trees LuminosityBlocks, Runs): "
         "file=PATH, tree=NAME, compression=zlib|lz4|zstd|lzma (lz4), level=0..9 (lz4: 4, else 5), basket=BYTES, "
         "split=LEVEL, keep=GLOB, writer=serial|parallel (default: parallel with more than one thread and lane, as "
         "parallel-root, a buffer per thread but not more than lanes; else serial, a one module); the serial "
         "writer's autoflush=N, imt=true|false (ROOT compresses on the job's threads; default: true with more than "
         "one thread, except in a shared-writer job), flush=EVENTS (a batch of a shared-writer job); the parallel "
         "writer's concurrency=N, flush=EVENTS (as parallel-root's)",
         PluginRole::Module, kOutputFiles},
        makeRootOutput);
  }
} const registration;

}

}  // namespace lanes::rootio
