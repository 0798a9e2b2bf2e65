#pragma once
// A rank's side of a shared-writer MPI job (--output-mode shared-writer):
// its outputs ship their events in batches to rank 0, which merges each into
// the job's outputs as it arrives (through the outputs' own shared-writer
// merge, as the node's shared writer does), instead of every rank writing a
// part that rank 0 merges at the end. Rank 0 ships its own batches to the
// same writer, without MPI.

#include <mpi.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "multiprocess/OutputParts.h"
#include "MpiBatchChannel.h"
#include "lanes/core/EventProcessor.h"

namespace lanes::node {

// Externally synchronised by the rank's main thread: constructed before the
// rank's MPI thread starts (collective), finished after it has ended; the
// part's lanes ship through sink(), the MPI thread calls traffic().
class MpiSharedOutputs {
 public:
  // A batch being sent while the next one fills: at most this many per rank.
  static constexpr unsigned kInFlightPerRank = 2;

  // Collective. Rank 0 opens the shared outputs; if it cannot, the failure
  // is kept for the report and the rank's part is stopped before it starts
  // (so every rank stops), and the batches that still come are dropped.
  MpiSharedOutputs(EventProcessor& processor, MPI_Comm comm);
  ~MpiSharedOutputs();
  MpiSharedOutputs(MpiSharedOutputs const&) = delete;
  MpiSharedOutputs& operator=(MpiSharedOutputs const&) = delete;

  BatchSink* sink();
  MpiTraffic* traffic();

  // After the rank's part, and after its MPI thread has ended: sends (or, on
  // rank 0, receives and merges) every batch left. Adds to the part's
  // report "shipped" {batches, bytes, waits}, and on rank 0 "writer"
  // {batches, bytes, merge_s, most_queued, queue_batches,
  // in_flight_per_rank, ranks [{rank, batches, bytes}], error}.
  void finish(nlohmann::json& report);

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::string openError_;                  // rank 0's, when it could not open the outputs
  std::unique_ptr<MpiBatchSender> sender_;  // every rank but 0
  std::unique_ptr<MpiBatchWriter> writer_;  // rank 0
};

// Rank 0, once every rank's report is in (rank 0's first): renames the
// shared outputs to their final names if the job succeeded, else removes
// them. The error is the writer's, or the commit's.
PartsMerge finishSharedOutputs(EventProcessor& processor, nlohmann::json const& rankZeroReport, bool failed);

}  // namespace lanes::node
