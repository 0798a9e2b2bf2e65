#include "MpiWriteTogether.h"

#include <chrono>

#include "multiprocess/MonotonicClock.h"
#include "lanes/core/Exception.h"

namespace lanes::node {

MpiProcessGroup::MpiProcessGroup(MPI_Comm comm) {
  if (MPI_Comm_dup(comm, &comm_) != MPI_SUCCESS) throw Exception("MPI cannot make the outputs' communicator");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  rank_ = static_cast<unsigned>(rank);
  size_ = static_cast<unsigned>(size);
}

MpiProcessGroup::~MpiProcessGroup() { MPI_Comm_free(&comm_); }

PartsMerge writeOutputsTogether(EventProcessor& processor, MPI_Comm comm, bool succeeded) {
  int every = succeeded ? 1 : 0;
  MPI_Bcast(&every, 1, MPI_INT, 0, comm);
  PartsMerge result;
  if (!every) return result;
  auto const begin = MonotonicClock::now();
  MpiProcessGroup const group(comm);
  try {
    processor.writeOutputsTogether(group);
  } catch (Exception const& error) {
    result.error = error.what();
  }
  result.seconds = std::chrono::duration<double>(MonotonicClock::now() - begin).count();
  return result;
}

}  // namespace lanes::node
