#pragma once
// hdf5 parallel=true: the ranks of an MPI job write one file together with
// parallel HDF5 (MPI-IO), each rank its own events' slabs. Built only with
// parallel HDF5 (H5_HAVE_PARALLEL: a build with MPI links hdf5-openmpi).
//
// Each rank first writes its part as any hdf5 output of a multi-process job
// does: a file of its own next to the output, by the same code. So its events
// wait on disk, not in memory, whatever their number, and a failed rank
// leaves only parts, which the job removes. Once every part succeeded, the
// ranks lay the file out together from their parts' layout (collective
// calls), every dataset as long as all the parts' together, and each rank
// copies its part into its slabs: at the offsets MPI_Exscan gives from the
// ranks' lengths, with ends (offsets, frame ends, batch ends) shifted by the
// start of their values' slab. The writes are collective (HDF5's filters,
// Fletcher32 on every dataset, take only collective writes): a rank with
// fewer blocks takes part with empty ones.

#include <string>

#include "hdf5/Hdf5Writer.h"
#include "lanes/core/ProcessGroup.h"

namespace lanes::hdf5 {

// Whether MPI runs in this process (an MPI job's rank).
bool mpiRunning();

// Collective over `group`, whose handle is an MPI_Comm: rank 0's `text`.
std::string fromRankZero(ProcessGroup const& group, std::string text);

// Collective over `group`: writes at `path` the events of every rank's
// `part` (an hdf5 file), in rank order. Takes lockLibrary(). Throws
// lanes::Exception on every rank alike when it failed on any (the lowest
// failing rank's error, naming it), and then no file is left at `path`.
// A rank's own failures (reading its part) never keep it from the others'
// collective calls; the collective calls themselves fail alike on every rank.
void writeTogether(ProcessGroup const& group, std::string const& part, std::string const& path, WriteSettings settings);

}  // namespace lanes::hdf5
