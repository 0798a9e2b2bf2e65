#include "root/TreeOutput.h"

#include <TFile.h>
#include <TROOT.h>
#include <TTree.h>

#include <tbb/task_arena.h>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"

namespace lanes::rootio {

TreeOutput::TreeOutput(std::string label, Options const& options)
    : TreeOutput(std::move(label), options, PluginOptions(options, "root")) {}

TreeOutput::TreeOutput(std::string label, Options const& options, PluginOptions const& checked)
    : Output(std::move(label)),
      file_(checked.forOption("file", [&] { return OutputFile(checked.required("file")); })),
      treeName_(options.getString("tree", "Events")),
      compression_(compressionOption(checked)),
      settings_{static_cast<int>(checked.positive("basket", 32000)), static_cast<int>(checked.count("split", 99))},
      autoFlush_(options.getInt("autoflush", -30000000)),
      imt_(options.getBool("imt", false)) {
  initialiseRoot();
  keep(options.getAll("keep"));
}

TreeOutput::~TreeOutput() { close(); }

void TreeOutput::beginJob(JobContext const& context) {
  columns_ = columnsOf(*this, context.registry);
  file_.begin(context.part);
  written_ = 0;
  if (imt_) ROOT::EnableImplicitMT(context.threads);
  takeRootMessage();
  rootFile_.reset(TFile::Open(file_.temporaryPath().c_str(), "RECREATE", "", compression_));
  if (!rootFile_ || rootFile_->IsZombie()) {
    throw Exception("cannot create '" + file_.temporaryPath() + "': " + takeRootMessage());
  }
  tree_ = new TTree(treeName_.c_str(), treeName_.c_str());
  tree_->SetDirectory(rootFile_.get());
  tree_->SetAutoFlush(autoFlush_);
  filler_ = std::make_unique<TreeFiller>(*tree_, columns_, settings_);
}

void TreeOutput::write(Event const& event) {
  if (imt_) {
    tbb::this_task_arena::isolate([&] { filler_->fill(event); });
  } else {
    filler_->fill(event);
  }
  ++written_;
}

void TreeOutput::endJob() {
  rootFile_->cd();
  takeRootMessage();
  if (tree_->Write() <= 0) throw Exception("cannot write tree to '" + file_.temporaryPath() + "': " + takeRootMessage());
  close();
  file_.commit();
}

void TreeOutput::abandon() {
  close();
  file_.discard();
}

void TreeOutput::close() {
  filler_.reset();
  if (rootFile_) rootFile_->Close();
  rootFile_.reset();
  tree_ = nullptr;
}

void TreeOutput::mergeParts(std::vector<std::string> const& parts) { file_.mergeParts(parts); }

void TreeOutput::discardParts(std::vector<std::string> const& parts) { file_.discardParts(parts); }

std::string TreeOutput::details() const { return fileDetails(file_, written_); }

namespace {
RegisterOutput<TreeOutput> const registration(
    "root",
    "writes a TTree, a branch per product (a one module): file=PATH, tree=NAME, compression=zlib|lz4|zstd|lzma, "
    "level=0..9, basket=BYTES, split=LEVEL, autoflush=N, imt=true|false, keep=GLOB");
}

}  // namespace lanes::rootio
