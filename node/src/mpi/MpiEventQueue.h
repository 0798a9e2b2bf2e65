#pragma once
// The state the ranks of an MPI job share during the run, and the thread of
// each rank that reaches it: a counter of chunks handed out and a stop flag,
// both in an MPI window on rank 0, updated with MPI_Fetch_and_op (no rank
// serves them: one-sided atomics, progressed by MPI itself).

#include <mpi.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "MpiBatchChannel.h"
#include "lanes/core/EventDispenser.h"

namespace lanes::node {

// Externally synchronised (MPI_THREAD_SERIALIZED): construction and
// destruction are collective, on the main thread; in between, one thread at
// a time claims and flags (the MpiAgent while it runs).
class MpiJobWindow {
 public:
  explicit MpiJobWindow(MPI_Comm comm);
  ~MpiJobWindow();
  MpiJobWindow(MpiJobWindow const&) = delete;
  MpiJobWindow& operator=(MpiJobWindow const&) = delete;

  std::uint64_t claimChunk();  // the next chunk, for this rank alone
  void raiseStop();
  bool stopRaised();

 private:
  std::uint64_t fetchAndOp(int slot, std::uint64_t operand, MPI_Op op);

  MPI_Win window_ = MPI_WIN_NULL;
  std::uint64_t* memory_ = nullptr;  // rank 0's two slots; none elsewhere
};

// The rank's MPI thread while its part runs (not a oneTBB worker): claims
// the next chunk before the dispenser needs it, so that a lane asking for
// an event finds one claimed already (or, for chunks as large as a file,
// when it is asked: a rank that claimed a file ahead would keep it from a
// rank with nothing to do); watches the stop flag and calls `onStop` (which
// stops the processor) when another rank raised it; and makes the MPI calls
// of `traffic` (a shared writer's batches), if any, every kMpiTrafficPoll.
// Thread-safe: takeChunk() is called by the lanes, finish() by the main
// thread once the part has ended.
class MpiAgent {
 public:
  enum class Claims { None, Ahead, WhenAsked };
  MpiAgent(MpiJobWindow& window, std::function<void()> onStop, Claims claims, MpiTraffic* traffic = nullptr);
  ~MpiAgent();
  MpiAgent(MpiAgent const&) = delete;
  MpiAgent& operator=(MpiAgent const&) = delete;

  // The chunk claimed ahead; waits only when the rank has used it up before
  // the next claim came back (its lanes then have nothing else to do), or
  // for the claim it asks for (Claims::WhenAsked).
  std::uint64_t takeChunk();
  // Stops the thread, raising the stop flag first if `raiseStop`.
  void finish(bool raiseStop);
  // How many times a lane had to wait for a claim.
  std::uint64_t waits() const;

 private:
  void serve();

  MpiJobWindow& window_;
  std::function<void()> const onStop_;
  Claims const claims_;
  MpiTraffic* const traffic_;
  mutable std::mutex mutex_;
  std::condition_variable claimed_, wanted_;
  std::deque<std::uint64_t> ahead_;
  std::uint64_t waits_ = 0;
  bool asked_ = false;  // Claims::WhenAsked: a lane waits for a claim
  bool finishing_ = false, raiseStop_ = false;
  std::thread thread_;
};

// Events in chunks of `chunkSize` claimed through an MpiAgent, up to
// `limit` (the job's -n; 0: until the source ends). Thread-safe: a mutex
// guards the current chunk (held for a few instructions per event, and
// across a claim only when none was claimed ahead).
class MpiQueueDispenser : public EventDispenser {
 public:
  MpiQueueDispenser(MpiAgent& agent, std::uint64_t chunkSize, std::uint64_t limit);
  std::optional<std::uint64_t> next() override;

 private:
  MpiAgent& agent_;
  std::uint64_t const chunkSize_, limit_;
  std::mutex mutex_;
  std::uint64_t next_ = 0, end_ = 0;
};

}  // namespace lanes::node
