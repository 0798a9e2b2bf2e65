#pragma once
// The node supervisor (the ALICE grid middleware's idea): runs a list of jobs
// on this machine, each with its own PUs from a NodeAllocator, samples each
// job's CPU use from /proc, and confines a job that uses more than its cores
// (by more than the tolerance, for longer than the grace period) to its PUs:
// every thread of every process in its tree, again at each sample for
// threads and processes started later.

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lanes/node/PinningStrategy.h"
#include "lanes/node/SupervisorJobs.h"
#include "lanes/node/Topology.h"

namespace lanes::node {

// When a job is bound to its PUs.
enum class Confinement { OnOveruse, AtStart };

// Immutable value type.
struct SupervisorOptions {
  PinStrategy strategy{PinKind::NumaCompact};  // none: jobs are measured, never bound
  double intervalSeconds = 1;
  double graceSeconds = 5;
  double tolerance = 0.2;
  Confinement confinement = Confinement::OnOveruse;
};

// Immutable value type: what became of one job.
struct JobOutcome {
  JobSpec job;
  CpuSet pus;          // allocated
  pid_t pid = 0;       // 0 when it could not be started
  double startedAt = 0;  // seconds after the supervisor started
  double wallSeconds = 0;
  double userSeconds = 0;  // of the job and the children it waited for
  double systemSeconds = 0;
  int exitCode = 0;     // or 128 + signal; 127 when it could not be started
  std::string error;    // why it could not be started
  bool confined = false;
  double confinedAt = 0;  // seconds after the job started
  double peakUsage = 0;   // in cores, the highest of the samples
};

// Throws lanes::Exception naming the job's line when a job could not get its
// PUs even on an empty node.
void checkEachJobFits(std::vector<ProcessingUnit> const& pus, PinStrategy const& strategy,
                      std::vector<JobSpec> const& jobs);

// Externally synchronised: run() on one thread, which must be the process's
// only thread (it blocks SIGCHLD while it runs, to wait for jobs and the next
// sample at once).
class Supervisor {
 public:
  using Log = std::function<void(std::string const&)>;

  // `topology` must be this machine's.
  Supervisor(Topology const& topology, SupervisorOptions options, Log log);

  // Starts the jobs in file order, each as soon as its PUs are free, and
  // returns when all have ended. A job that fails is reported, not retried.
  std::vector<JobOutcome> run(std::vector<JobSpec> const& jobs);

 private:
  std::vector<ProcessingUnit> pus_;
  SupervisorOptions options_;
  Log log_;
};

// {strategy, interval_s, grace_s, tolerance, confine, jobs: [{line, name,
// command, cores, pus, pid, started_s, wall_s, user_s, sys_s, exit_code,
// error, confined, confined_after_s, peak_usage_cores}]}
nlohmann::json toJson(SupervisorOptions const& options, std::vector<JobOutcome> const& outcomes);

// One line per job: name, cores, PUs, wall, user, sys, exit code, confinement.
void printTable(std::ostream& out, std::vector<JobOutcome> const& outcomes);

}  // namespace lanes::node
