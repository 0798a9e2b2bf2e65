#pragma once
// The outputs that write one file together across an MPI job's ranks
// (OutputModule::writeTogether(): hdf5 parallel=true), after the ranks'
// parts: every rank takes part, on a communicator of its own, once rank 0
// has established that every rank's part succeeded.

#include <mpi.h>

#include <string>

#include "multiprocess/OutputParts.h"
#include "lanes/core/EventProcessor.h"
#include "lanes/core/ProcessGroup.h"

namespace lanes::node {

// An MPI communicator as the core's ProcessGroup. Immutable after
// construction, which duplicates `comm` (collective) so that no other
// message of the job matches the outputs' own.
class MpiProcessGroup final : public ProcessGroup {
 public:
  explicit MpiProcessGroup(MPI_Comm comm);
  ~MpiProcessGroup() override;
  MpiProcessGroup(MpiProcessGroup const&) = delete;
  MpiProcessGroup& operator=(MpiProcessGroup const&) = delete;

  unsigned rank() const override { return rank_; }
  unsigned size() const override { return size_; }
  void const* handle() const override { return &comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  unsigned rank_ = 0, size_ = 1;
};

// Collective over `comm`, on every rank's main thread, after the rank's part
// and its MPI thread have ended. `succeeded` is rank 0's word (other ranks'
// is ignored): every part succeeded. Then the outputs write together
// (EventProcessor::writeOutputsTogether()); returns the error every rank
// agrees on, or "" (also when the parts did not all succeed: nothing was
// written together, and rank 0 removes the parts as for any failed job), and
// how long it took.
PartsMerge writeOutputsTogether(EventProcessor& processor, MPI_Comm comm, bool succeeded);

}  // namespace lanes::node
