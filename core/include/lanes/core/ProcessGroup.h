#pragma once
// The processes of one job that write an output together (an MPI job's
// ranks), as an output that does so sees them (OutputModule::writeTogether()).
// The core knows nothing of how they talk: the node layer's driver makes the
// group, and an output that writes through a parallel library (parallel HDF5)
// hands that library the group's handle.

namespace lanes {

// Immutable after construction. Used by each process's main thread, in calls
// that every process of the group makes at once.
class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual unsigned rank() const = 0;
  virtual unsigned size() const = 0;
  // The transport's handle of the group: under MPI, the address of its MPI_Comm.
  virtual void const* handle() const = 0;
};

}  // namespace lanes
