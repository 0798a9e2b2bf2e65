#include "root/SharedWriter.h"

#include <TFile.h>
#include <TMemFile.h>
#include <TROOT.h>
#include <TTree.h>

#include <nlohmann/json.hpp>

#include "lanes/core/Exception.h"
#include "root/RecordFiles.h"

namespace lanes::rootio {

BatchFile::BatchFile(std::string const& path, int compression, std::uint64_t flushEvents, JobContext const& context)
    : path_(path),
      shipBatch_(context.shipBatch),
      maxBytes_(context.maxBatchBytes),
      flushEvents_(flushEvents) {
  takeRootMessage();
  file_ = std::make_unique<TMemFile>(path_.c_str(), "RECREATE", "", compression);
  if (file_->IsZombie()) throw Exception("cannot create a batch of '" + path_ + "' in memory: " + takeRootMessage());
  // Out of ROOT's list of files: no other thread's file operation walks it
  // while this one's call fills it (TBufferMerger::GetFile() does the same).
  gROOT->GetListOfFiles()->Remove(file_.get());
}

BatchFile::~BatchFile() = default;

bool BatchFile::add(std::size_t bytes) {
  ++events_;
  bytes_ += bytes;
  return events_ >= flushEvents_ || bytes_ >= maxBytes_ / 2;
}

std::size_t BatchFile::ship() {
  takeRootMessage();
  file_->WriteStreamerInfo();
  if (file_->Write() < 0) throw Exception("cannot write a batch of '" + path_ + "': " + takeRootMessage());
  auto const size = static_cast<std::size_t>(file_->GetEND());
  if (size > maxBytes_) {
    throw Exception("a batch of '" + path_ + "' (" + std::to_string(events_) + " events) takes " + std::to_string(size) +
                    " bytes, more than a shared-writer slot's " + std::to_string(maxBytes_) + ": lower flush=");
  }
  buffer_.resize(size);
  file_->CopyTo(buffer_.data(), static_cast<Long64_t>(size));
  shipBatch_(buffer_.data(), size);
  file_->ResetAfterMerge(nullptr);
  events_ = 0;
  bytes_ = 0;
  return size;
}

SharedFile::SharedFile(OutputFile& file, int compression, std::string tree, std::unique_ptr<TreeRecords> records)
    : file_(file), tree_(std::move(tree)), records_(std::move(records)) {
  file_.begin("");
  merger_.SetPrintLevel(0);
  for (auto const* name : {kLumiRecords, kRunRecords}) merger_.AddObjectNames(name);
  takeRootMessage();
  if (!merger_.OutputFile(file_.temporaryPath().c_str(), "RECREATE", compression)) {
    file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
  }
}

SharedFile::~SharedFile() {
  if (!committed_) merger_.CloseOutputFile();
}

void SharedFile::merge(void const* bytes, std::size_t size) {
  takeRootMessage();
  // Read in place: the batch's slot stays valid until the merger lets go of
  // the file (Reset() deletes it).
  auto* batch = new TMemFile(file_.path().c_str(), TMemFile::ZeroCopyView_t(static_cast<char const*>(bytes), size));
  auto* const tree = batch->IsZombie() ? nullptr : batch->Get<TTree>(tree_.c_str());
  if (!tree || !merger_.AddAdoptFile(batch, false)) {
    throw Exception("cannot read a batch for '" + file_.path() + "': " + takeRootMessage());
  }
  entries_ += static_cast<std::uint64_t>(tree->GetEntries());
  try {
    if (batch->GetKey(kLumiRecords)) readRecordTrees(*batch, file_.path(), *records_);
  } catch (Exception const& error) {
    file_.fail(error.message());
  }
  bool const merged = merger_.PartialMerge(TFileMerger::kAllIncremental | TFileMerger::kDelayWrite |
                                           TFileMerger::kKeepCompression | TFileMerger::kSkipListed);
  merger_.Reset();
  if (!merged) file_.fail(writeFailure(file_.temporaryPath(), takeRootMessage()));
  ++batches_;
  bytes_ += size;
}

void SharedFile::commit() {
  auto& output = *merger_.GetOutputFile();
  try {
    writeRecordTrees(*records_, output, {});
  } catch (Exception const& error) {
    file_.fail(error.message());
  }
  takeRootMessage();
  bool const written = output.Write(nullptr, TObject::kOverwrite) >= 0;
  auto const message = takeRootMessage();
  output.Close();
  bool const intact = !output.TestBit(TFile::kWriteError);
  merger_.CloseOutputFile();
  if (!written || !intact) file_.fail(writeFailure(file_.temporaryPath(), message));
  file_.commit(entries_, treeEntries(tree_));
  committed_ = true;
}

std::string SharedFile::details(std::string const& fileDetails) const {
  auto details = nlohmann::json::parse(recordDetails(fileDetails, records_.get(), committed_));
  details["batches_received"] = batches_;
  details["bytes_received"] = bytes_;
  return details.dump();
}

std::string shippedDetails(OutputFile const& file, std::uint64_t events, std::uint64_t batches, std::uint64_t bytes) {
  return nlohmann::json{{"file", file.path()},
                        {"committed", false},
                        {"events_written", events},
                        {"batches_shipped", batches},
                        {"bytes_shipped", bytes}}
      .dump();
}

}  // namespace lanes::rootio
