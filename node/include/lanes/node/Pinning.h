#pragma once
// Binding threads and processes of this machine to PUs: the affinity calls,
// the pinner that gives each thread of a job its own PU, and running a
// command confined to a set of PUs.

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "lanes/node/PinningStrategy.h"

namespace lanes::node {

// Binds thread (or process) `tid` to `pus`; 0 is the calling thread. False
// when there is no such thread (it has ended); throws lanes::Exception naming
// the thread and the reason on any other failure.
bool setAffinity(pid_t tid, CpuSet const& pus);

// The PUs thread (or process) `tid` may run on; 0 is the calling thread.
// Throws lanes::Exception when it cannot be read (e.g. the thread has ended).
CpuSet affinityOf(pid_t tid);

// Thread-safe: pinCallingThread() may be called concurrently from any thread
// (it is EventProcessor::onThreadEntry's hook in `lanes run --pin`).
// Each new thread gets the next PU of the set, in order; a thread that comes
// back keeps its PU; more threads than PUs wrap around.
class ThreadPinner {
 public:
  explicit ThreadPinner(CpuSet pus);

  // Never throws (oneTBB's observer callbacks must not): a failure to bind
  // is kept for firstError().
  void pinCallingThread() noexcept;

  std::size_t threadsPinned() const;
  std::string firstError() const;  // empty when every thread was bound
  CpuSet const& pus() const { return pus_; }

 private:
  CpuSet const pus_;
  mutable std::mutex mutex_;
  std::map<pid_t, unsigned> assigned_;  // thread id -> PU
  std::string firstError_;
};

// Starts argv[0] (searched in PATH, no shell) with `argv`, confined to `pus`
// (not at all when empty), and returns its pid. Throws lanes::Exception
// ("cannot run 'X': reason") when it cannot be started.
pid_t spawnPinned(std::vector<std::string> const& argv, CpuSet const& pus);

// A wait() status as a shell would report it: the exit code, or 128 + signal.
int exitCodeOf(int waitStatus);

}  // namespace lanes::node
