#pragma once
// lanes as an MPI application: `mpirun -np R lanes run ...` runs one job
// over R ranks, each with its own threads and lanes, each writing its part of
// the outputs (worker-RANK, as a multi-process worker does). Rank 0 merges
// the parts once every rank succeeded, gathers the ranks' reports into one,
// and its exit status is every rank's. With a shared writer, the ranks ship
// their outputs' batches by MPI to rank 0 instead, which merges them as they
// come. Events are handed out through the core's EventDispenser: chunks
// claimed from a counter in an MPI window (mpi-queue), or a static block or
// round-robin share. A rank that fails or is stopped raises a flag in that
// window, and every rank stops.
//
// This header is MPI-free: the driver (node/src/mpi) is built only when the
// build finds MPI, and then LANES_HAVE_MPI is 1.

#include <cstdint>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "lanes/core/EventProcessor.h"
#include "lanes/core/Source.h"
#include "lanes/node/MultiProcessJob.h"

namespace lanes::node {

enum class MpiDistribution {
  Queue,       // mpi-queue: ranks claim chunks of events as they become free
  Block,       // rank r of R takes the r-th of R consecutive blocks of the job's events
  RoundRobin,  // rank r of R takes events r, r+R, r+2R, ...
};

MpiDistribution parseMpiDistribution(std::string const& name);  // throws lanes::Exception
char const* toString(MpiDistribution distribution);

// True when an MPI launcher (OpenMPI's mpirun, or a PMI/PMIx one such as
// srun) started this process.
bool startedByMpiLauncher();

struct MpiOptions {
  MpiDistribution distribution = MpiDistribution::Queue;
  std::uint64_t chunk = 10;   // events per claim (mpi-queue)
  bool byFile = false;        // --chunk file: whole input files instead (node/src/mpi/MpiFileChunks.h)
  std::uint64_t events = 0;   // the job's -n; 0: until the source ends (refused by block)
  // Merge: each rank writes its part, rank 0 merges them at the end;
  // SharedWriter: the ranks ship batches by MPI to rank 0, which merges them
  // as they come (node/src/mpi/MpiSharedOutputs.h).
  OutputMode outputMode = OutputMode::Merge;
  // --trace: rank 0 writes the job's trace here; every rank records its part
  // at partPath(mpiTraceRecording(), its part's name) meanwhile. Empty: none.
  std::string trace;
};

// Throws lanes::Exception naming the option (or, with the processor, an
// output that cannot take part).
void validate(MpiOptions const& options);
void validate(MpiOptions const& options, EventProcessor const& processor);

#if LANES_HAVE_MPI

// MPI for the life of one job: the constructor initialises it with the
// thread level the job needs (serialised calls: the main thread before and
// after the run, one agent thread during it), the destructor finalises it.
// Externally synchronised: one per process, used by its main thread.
class MpiSession {
 public:
  MpiSession();  // throws lanes::Exception when MPI cannot give that level
  ~MpiSession();
  MpiSession(MpiSession const&) = delete;
  MpiSession& operator=(MpiSession const&) = delete;

  unsigned rank() const { return rank_; }
  unsigned size() const { return size_; }
  // Collective: the lowest rank for which `failed` is true, or size().
  unsigned firstFailing(bool failed) const;
  // Collective: rank 0's value, on every rank.
  int fromRankZero(int value) const;

 private:
  unsigned rank_ = 0, size_ = 1;
};

// --chunk file (MpiOptions::byFile), as the job begins, before runMpi():
// counts the entries of this rank's share of the source's input files,
// opening only those. Throws lanes::Exception if the source does not read
// several files, or one of them cannot be read.
void countRankFiles(Source& source, MpiOptions const& options, unsigned rank, unsigned ranks);

// Where this process records its part of an MPI job's --trace: a file of its
// node's temporary directory (TMPDIR, else /tmp), named after its pid; rank
// 0 gathers the parts by MPI (node/src/mpi/MpiTrace.h).
std::string mpiTraceRecording();

// Collective: runs this rank's part of the job (`processor` constructed and
// begun on every rank: the ranks agree on that first), then rank 0 merges
// the outputs' parts (or, with a shared writer, closes the outputs it wrote
// the batches into). On rank 0 it returns the job's report: {mode: "mpi",
// output_mode, writer (shared writer: see MpiSharedOutputs::finish()),
// processes, distribution, chunk, events, wall_s, events_per_s,
// finish_spread_s, merge_s, workers [one row per rank: rank, host, pid,
// part, status, events, started_s, finished_s, events_per_s, memory (at
// the end), shipped (shared writer), files (--chunk file: those it took),
// report], outputs, memory {total_pss_bytes, total_rss_bytes, workers},
// failed, error, stop_requested, signal, and the ranks' figures merged under
// a single process's keys (see addMergedFigures in MultiProcessReport.h)};
// on the other ranks, {rank}. A part's report may carry "signal", the signal
// that stopped that rank. With options.trace,
// rank 0 writes the trace too (a failure to is the job's).
nlohmann::json runMpi(EventProcessor& processor, MpiSession const& session, MpiOptions const& options,
                      PartRunner const& runner);

// Prints the report's headline figures, one line per rank, and the ranks'
// merged analysis, folded to `rows`.
void printMpiReport(nlohmann::json const& report, std::ostream& out, SummaryRows rows = {});

#endif

}  // namespace lanes::node
