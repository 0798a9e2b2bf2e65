#include "root/EventsOutput.h"

#include <TFile.h>
#include <TTree.h>

#include "lanes/core/Exception.h"
#include "lanes/core/PluginRegistry.h"
#include "root/BlobReader.h"
#include "root/InputFiles.h"

namespace lanes::rootio {

EventsOutput::EventsOutput(std::string label, Options const& options)
    : BlobOutput(std::move(label), "root-events", "entries", options) {}

EventsOutput::~EventsOutput() {
  blobs_.wait();
  close();
}

void EventsOutput::beginJob(JobContext const& context) {
  beginBlobs(context, [this](BlobBatch& batch) { fill(batch); });
  branches_ = std::make_unique<BlobBatch>();

  file_.begin(context.part);
  takeRootMessage();
  rootFile_.reset(TFile::Open(file_.temporaryPath().c_str(), "RECREATE", "", kSmallBranchCompression));
  if (!rootFile_ || rootFile_->IsZombie() || rootFile_->TestBit(TFile::kWriteError)) {
    file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
  }
  writeProducts();
  tree_ = new TTree(kBlobTree, "lanes root-events: serialised products per batch of events");
  tree_->SetDirectory(rootFile_.get());
  auto& b = *branches_;
  tree_->Branch("run", &b.run);
  tree_->Branch("luminosityBlock", &b.luminosityBlock);
  tree_->Branch("event", &b.event);
  tree_->Branch("blob", &b.blob)->SetCompressionSettings(0);  // the framework compressed it
  tree_->Branch("events", &b.events);
  tree_->Branch("sizes", &b.sizes);
}

void EventsOutput::writeProducts() {
  std::vector<std::string> labels, types;
  for (auto const& column : blobs_.serialized().columns) {
    labels.push_back(column.label);
    types.push_back(storedTypeName(column.type));
  }
  std::string serialization = nameOf(blobs_.serialization());
  std::string compression = codec::nameOf(blobs_.compression().algorithm);
  std::string compress = nameOf(blobs_.level());
  auto* products = new TTree(kProductTree, "lanes root-events: the products of every event, run and lumi");
  products->SetDirectory(rootFile_.get());
  products->Branch("labels", &labels);
  products->Branch("types", &types);
  products->Branch("serialization", &serialization);
  products->Branch("compression", &compression);
  products->Branch("compress", &compress);
  std::vector<std::string> recordLists[2][2];  // [lumi, run][labels, types]
  for (auto const level : {Level::Lumi, Level::Run}) {
    auto& lists = recordLists[level == Level::Run ? 1 : 0];
    for (auto const& [label, type] : records_.productsOf(level)) {
      lists[0].push_back(label);
      lists[1].push_back(type);
    }
    products->Branch(labelsBranch(level), &lists[0]);
    products->Branch(typesBranch(level), &lists[1]);
  }
  if (products->Fill() <= 0) file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
  products->ResetBranchAddresses();
}

void EventsOutput::fill(BlobBatch& batch) {
  std::swap(*branches_, batch);
  takeRootMessage();
  auto const filled = tree_->Fill();
  std::swap(*branches_, batch);
  if (filled <= 0 || rootFile_->TestBit(TFile::kWriteError)) {
    file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
  }
}

void EventsOutput::endJob() {
  blobs_.finish();
  rootFile_->cd();
  takeRootMessage();
  try {
    writeRecords(*rootFile_, records_.stored());
  } catch (Exception const& error) {
    close();
    file_.fail(writeFailure(file_.temporaryPath(), error.message()));
  }
  bool const written = rootFile_->Write() > 0;
  auto const message = takeRootMessage();
  if (!close() || !written) file_.fail(writeFailure(file_.temporaryPath(), message));
  file_.commit(blobs_.batches(), treeEntries(kBlobTree));
}

bool EventsOutput::close() {
  bool intact = true;
  if (rootFile_) {
    rootFile_->Close();
    intact = !rootFile_->TestBit(TFile::kWriteError);
  }
  rootFile_.reset();
  tree_ = nullptr;
  return intact;
}

void EventsOutput::mergeParts(std::vector<std::string> const& parts) {
  // TFileMerger concatenates the parts' records; the merged ones replace them.
  file_.mergeParts(parts, kSmallBranchCompression, treeEntries(kBlobTree),
                   [this](std::vector<std::string> const& files) { replaceRecords(files); });
}

void EventsOutput::replaceRecords(std::vector<std::string> const& parts) {
  auto const records = mergedRecords(parts, [](std::string const& path) {
    auto const file = openInputFile(path);
    return readRecords(*file, path);
  });
  auto const& path = file_.temporaryPath();
  takeRootMessage();
  std::unique_ptr<TFile> merged(TFile::Open(path.c_str(), "UPDATE"));
  if (!merged || merged->IsZombie()) file_.fail(writeFailure(path, takeRootMessage()));
  try {
    writeRecords(*merged, records);
  } catch (Exception const& error) {
    file_.fail(writeFailure(path, error.message()));
  }
  bool const written = merged->Write() > 0;
  merged->Close();
  if (!written || merged->TestBit(TFile::kWriteError)) file_.fail(writeFailure(path, takeRootMessage()));
}

namespace {
RegisterOutput<EventsOutput> const registration(
    "root-events",
    "each event's products serialised by the framework into one blob of a TTree entry: file=PATH, "
    "serialization=root|unrolled, compression=none|lz4|zstd, level=, compress=product|event|batch|both, "
    "batch=EVENTS per entry, keep=GLOB");
}

}  // namespace lanes::rootio
