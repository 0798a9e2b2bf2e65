#include "MpiSharedOutputs.h"

#include <chrono>

#include "multiprocess/MonotonicClock.h"
#include "lanes/core/Exception.h"

namespace lanes::node {

namespace {

nlohmann::json toJson(ShippedBatches const& shipped) {
  return {{"batches", shipped.batches}, {"bytes", shipped.bytes}, {"waits", shipped.waits}};
}

}  // namespace

MpiSharedOutputs::MpiSharedOutputs(EventProcessor& processor, MPI_Comm comm) {
  // A communicator of their own: no other message of the job matches a batch.
  if (MPI_Comm_dup(comm, &comm_) != MPI_SUCCESS) {
    throw Exception("shared writer: MPI cannot make the batches' communicator");
  }
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &ranks);
  if (rank != 0) {
    sender_ = std::make_unique<MpiBatchSender>(comm_, kInFlightPerRank);
    return;
  }
  try {
    processor.openSharedOutputs();
  } catch (Exception const& error) {
    openError_ = error.what();
    processor.requestStop();
  }
  auto merge = [&processor, error = openError_](unsigned output, void const* bytes, std::size_t size) {
    if (!error.empty()) throw Exception(error);
    processor.mergeOutputBatch(output, bytes, size);
  };
  // As many batches queued as a node's ring has slots: two per rank.
  writer_ = std::make_unique<MpiBatchWriter>(comm_, kInFlightPerRank * static_cast<unsigned>(ranks), std::move(merge),
                                             [&processor] { processor.requestStop(); });
}

MpiSharedOutputs::~MpiSharedOutputs() {
  sender_.reset();
  writer_.reset();
  MPI_Comm_free(&comm_);
}

BatchSink* MpiSharedOutputs::sink() { return sender_ ? static_cast<BatchSink*>(sender_.get()) : writer_.get(); }

MpiTraffic* MpiSharedOutputs::traffic() { return sender_ ? static_cast<MpiTraffic*>(sender_.get()) : writer_.get(); }

void MpiSharedOutputs::finish(nlohmann::json& report) {
  if (sender_) {
    sender_->finish();
    report["shipped"] = toJson(sender_->shipped());
    return;
  }
  writer_->finish();
  auto const written = writer_->written();
  nlohmann::json ranks = nlohmann::json::array();
  std::uint64_t batches = 0, bytes = 0;
  for (std::size_t r = 0; r < written.batches.size(); ++r) {
    ranks.push_back({{"rank", r}, {"batches", written.batches[r]}, {"bytes", written.bytes[r]}});
    batches += written.batches[r];
    bytes += written.bytes[r];
  }
  report["shipped"] = toJson(written.own);
  auto const error = openError_.empty() ? written.error : openError_;
  report["writer"] = {{"batches", batches},
                      {"bytes", bytes},
                      {"merge_s", written.mergeSeconds},
                      {"most_queued", written.mostQueued},
                      {"queue_batches", kInFlightPerRank * written.batches.size()},
                      {"in_flight_per_rank", kInFlightPerRank},
                      {"ranks", ranks},
                      {"error", error.empty() ? error : "shared writer (rank 0): " + error}};
}

PartsMerge finishSharedOutputs(EventProcessor& processor, nlohmann::json const& rankZeroReport, bool failed) {
  PartsMerge result;
  result.error = rankZeroReport.at("writer").value("error", std::string());
  if (failed || !result.error.empty()) {
    processor.abandonSharedOutputs();
    return result;
  }
  auto const begin = MonotonicClock::now();
  try {
    processor.commitSharedOutputs();
  } catch (Exception const& error) {
    result.error = error.what();
    processor.abandonSharedOutputs();
  }
  result.seconds = std::chrono::duration<double>(MonotonicClock::now() - begin).count();
  return result;
}

}  // namespace lanes::node
