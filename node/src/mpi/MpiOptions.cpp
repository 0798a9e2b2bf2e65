#include <cstdlib>

#include "lanes/core/Exception.h"
#include "lanes/node/MpiJob.h"

namespace lanes::node {

MpiDistribution parseMpiDistribution(std::string const& name) {
  if (name == "mpi-queue") return MpiDistribution::Queue;
  if (name == "block") return MpiDistribution::Block;
  if (name == "round-robin") return MpiDistribution::RoundRobin;
  throw Exception("--distribution under MPI must be 'mpi-queue', 'block' or 'round-robin', not '" + name + "'");
}

char const* toString(MpiDistribution distribution) {
  switch (distribution) {
    case MpiDistribution::Queue: return "mpi-queue";
    case MpiDistribution::Block: return "block";
    case MpiDistribution::RoundRobin: return "round-robin";
  }
  return "?";
}

bool startedByMpiLauncher() {
  for (char const* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(variable)) return true;
  }
  return false;
}

void validate(MpiOptions const& options) {
  if (options.chunk < 1) throw Exception("--chunk must be at least 1");
  if (options.distribution == MpiDistribution::Block && options.events == 0 && !options.byFile) {
    throw Exception("--distribution block splits the job's events into blocks: give their number with -n N (or split the "
                    "input files: --chunk file)");
  }
}

void validate(MpiOptions const& options, EventProcessor const& processor) {
  validate(options);
  if (options.outputMode == OutputMode::SharedWriter) requireOutputsThatShareAWriter(processor);
}

}  // namespace lanes::node
