#include <mpi.h>

#include "lanes/core/Exception.h"
#include "lanes/node/MpiJob.h"

namespace lanes::node {

MpiSession::MpiSession() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
    throw Exception("MPI: cannot initialise");
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rank_ = static_cast<unsigned>(rank);
  size_ = static_cast<unsigned>(size);
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw Exception("MPI: this MPI library cannot take calls from more than one thread (MPI_THREAD_SERIALIZED)");
  }
}

MpiSession::~MpiSession() { MPI_Finalize(); }

unsigned MpiSession::firstFailing(bool failed) const {
  int mine = failed ? static_cast<int>(rank_) : static_cast<int>(size_), first = 0;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return static_cast<unsigned>(first);
}

int MpiSession::fromRankZero(int value) const {
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

}  // namespace lanes::node
