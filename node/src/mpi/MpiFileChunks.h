#pragma once
// --chunk file under MPI: the ranks take whole input files of a source that
// reads several (Source::fileList()), so that a rank opens only the files
// it is given (and the first, which every rank opens to learn the layout).
// As the job begins each file's entries are counted by one rank, which opens
// it (countRankFiles(), MpiJob.h), and shared with every rank by MPI, so
// that a rank moves past the others' files without opening them. Block:
// rank r of R takes the r-th of R runs of consecutive files; round-robin:
// files r, r+R, ...; mpi-queue: the next file whenever the rank needs one,
// claimed from the window's counter.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lanes/core/EventDispenser.h"
#include "lanes/core/Source.h"
#include "lanes/node/MpiJob.h"

namespace lanes::node {

// Whether rank `rank` of `ranks` counts file `file` of `files`: its own
// (block, round-robin), or every R-th (mpi-queue: who reads which is not
// known before the run).
bool countsFile(MpiDistribution distribution, std::size_t file, std::size_t files, unsigned rank, unsigned ranks);

// Collective, before the run: every file's entries, from the rank that
// counted it, told to `source`. Returns each file's first ordinal, and the
// total after the last.
std::vector<std::uint64_t> shareFileEntries(Source& source, MpiDistribution distribution, MpiSession const& session);

// The files rank `rank` of `ranks` takes, one a call: its own (block,
// round-robin), or under mpi-queue the file `claim` returns (an index from
// the window's counter), until there are none.
std::function<std::optional<std::size_t>()> filesOfRank(MpiDistribution distribution, std::size_t files, unsigned rank,
                                                        unsigned ranks, std::function<std::uint64_t()> claim);

// The events of whole files, one file after another as `nextFile` hands
// them out (in increasing order; nothing once there are no more), up to
// ordinal `limit` (0: none). Thread-safe: a mutex guards the current file
// (held across nextFile()).
class FileChunkDispenser : public EventDispenser {
 public:
  FileChunkDispenser(std::vector<std::uint64_t> starts, std::uint64_t limit,
                     std::function<std::optional<std::size_t>()> nextFile);
  std::optional<std::uint64_t> next() override;
  // The files it handed out events of, in order.
  std::vector<std::size_t> filesTaken() const;

 private:
  std::vector<std::uint64_t> const starts_;
  std::uint64_t const limit_;
  std::function<std::optional<std::size_t>()> const nextFile_;
  mutable std::mutex mutex_;
  std::uint64_t next_ = 0, end_ = 0;
  bool done_ = false;
  std::vector<std::size_t> taken_;
};

}  // namespace lanes::node
