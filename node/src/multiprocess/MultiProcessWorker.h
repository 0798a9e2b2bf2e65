#pragma once
// A worker of a multi-process job, forked or started with exec: what it
// does from its start to its exit, and the names it shares with its parent.

#include <string>

#include "lanes/node/BatchRing.h"
#include "lanes/node/EventDistribution.h"
#include "lanes/node/MultiProcessJob.h"
#include "lanes/node/WorkerBoard.h"

namespace lanes::node {

// A worker's name, worker-SLOT (an MPI rank's part too), and where it
// writes its report.
std::string partName(unsigned slot);
std::string reportPath(std::string const& directory, unsigned slot);
// The part of the outputs a worker writes: its name and its parent's pid
// (worker-SLOT-of-PARENT; see lanes/core/TemporaryName.h).
std::string workerPart(WorkerRole const& role);

// The parent died (its death signal stopped this worker).
bool parentGone(WorkerRole const& role);

// Everything a worker does once it exists, forked or exec'd: runs its
// part, reports, tells the parent, waits to be released (so that the
// parent measures every worker's memory at the same moment), ends the job.
// Returns the process's exit status.
int serveAsWorker(EventProcessor& processor, MultiProcessOptions const& options, WorkerRole const& role,
                  SharedEventQueue* queue, BatchRing* ring, WorkerBoard& board, PartRunner const& runner);

}  // namespace lanes::node
