#pragma once
// A worker of a multi-process job, forked or started with exec: what it
// does from its start to its exit, and the names it shares with its parent.

#include <string>

#include "lanes/node/BatchRing.h"
#include "lanes/node/EventDistribution.h"
#include "lanes/node/MultiProcessJob.h"

namespace lanes::node {

// Its part of the outputs, worker-SLOT, and where it writes its report.
std::string partName(unsigned slot);
std::string reportPath(std::string const& directory, unsigned slot);

// The parent died (its death signal stopped this worker).
bool parentGone(WorkerRole const& role);

// Everything a worker does once it exists, forked or exec'd: runs its
// part, reports, tells the parent, waits to be released (so that the
// parent measures every worker's memory at the same moment), ends the job.
// Returns the process's exit status.
int serveAsWorker(EventProcessor& processor, MultiProcessOptions const& options, WorkerRole const& role,
                  SharedEventQueue* queue, BatchRing* ring, PartRunner const& runner);

}  // namespace lanes::node
