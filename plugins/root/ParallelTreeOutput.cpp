#include "root/ParallelTreeOutput.h"

#include <ROOT/TBufferMerger.hxx>
#include <TTree.h>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::rootio {

struct ParallelTreeOutput::Buffer {
  std::shared_ptr<ROOT::TBufferMergerFile> file;
  TTree* tree = nullptr;  // owned by file
  std::unique_ptr<TreeFiller> filler;
  std::uint64_t held = 0;  // events filled since the last merge

  // Merges what the buffer holds into the output; throws if ROOT fails.
  void merge(std::string const& path) {
    takeRootMessage();
    if (file->Write() < 0) throw Exception("cannot merge a buffer into '" + path + "': " + takeRootMessage());
    held = 0;
  }
};

bool ParallelTreeOutput::FullestFirst::operator()(Buffer const* a, Buffer const* b) const { return a->held < b->held; }

ParallelTreeOutput::ParallelTreeOutput(std::string label, Options const& options)
    : ParallelTreeOutput(std::move(label), options, PluginOptions(options, "parallel-root")) {}

ParallelTreeOutput::ParallelTreeOutput(std::string label, Options const& options, PluginOptions const& checked)
    : Output(std::move(label), static_cast<unsigned>(checked.positive("concurrency", 2))),
      file_(checked.forOption("file", [&] { return OutputFile(checked.required("file")); })),
      treeName_(options.getString("tree", "Events")),
      compression_(compressionOption(checked)),
      settings_{static_cast<int>(checked.positive("basket", 32000)), static_cast<int>(checked.count("split", 99))},
      flushEvents_(checked.positive("flush", 5000)) {
  initialiseRoot();
  keep(options.getAll("keep"));
}

ParallelTreeOutput::~ParallelTreeOutput() { close(); }

void ParallelTreeOutput::beginJob(JobContext const& context) {
  columns_ = columnsOf(*this, context.registry);
  file_.begin(context.part);
  written_.store(0);
  merges_.store(0);
  takeRootMessage();
  merger_ = std::make_unique<ROOT::TBufferMerger>(file_.temporaryPath().c_str(), "RECREATE", compression_);
  for (unsigned i = 0; i < concurrencyLimit(); ++i) {
    auto buffer = std::make_unique<Buffer>();
    buffer->file = merger_->GetFile();
    buffer->tree = new TTree(treeName_.c_str(), treeName_.c_str());
    buffer->tree->SetDirectory(buffer->file.get());
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
    buffer->filler->fill(event);
    if (++buffer->held >= flushEvents_) {
      buffer->merge(file_.path());
      merges_.fetch_add(1, std::memory_order_relaxed);
    }
  } catch (...) {
    free_.push(buffer);
    throw;
  }
  free_.push(buffer);
  written_.fetch_add(1, std::memory_order_relaxed);
}

void ParallelTreeOutput::endJob() {
  for (auto& buffer : buffers_) {
    if (buffer->held > 0) buffer->merge(file_.path());
  }
  close();
  file_.commit();
}

void ParallelTreeOutput::abandon() {
  close();
  file_.discard();
}

void ParallelTreeOutput::close() {
  // Buffers go before the merger, which then writes and closes the output.
  free_.clear();
  for (auto& buffer : buffers_) buffer->filler.reset();
  buffers_.clear();
  merger_.reset();
}

void ParallelTreeOutput::mergeParts(std::vector<std::string> const& parts) { file_.mergeParts(parts); }

void ParallelTreeOutput::discardParts(std::vector<std::string> const& parts) { file_.discardParts(parts); }

std::string ParallelTreeOutput::details() const {
  auto details = nlohmann::json::parse(fileDetails(file_, written_.load()));
  details["buffers"] = concurrencyLimit();
  details["merges"] = merges_.load();
  return details.dump();
}

namespace {
RegisterOutput<ParallelTreeOutput> const registration(
    "parallel-root",
    "writes a TTree through TBufferMerger from up to N events at once (a limited(N) module): file=PATH, "
    "concurrency=N, flush=EVENTS, tree=NAME, compression=, level=, basket=, split=, keep=GLOB");
}

}  // namespace lanes::rootio
