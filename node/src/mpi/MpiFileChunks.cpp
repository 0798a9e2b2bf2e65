#include "MpiFileChunks.h"

#include <mpi.h>

#include <algorithm>
#include <utility>

#include "lanes/core/Exception.h"

namespace lanes::node {

namespace {

// The first of rank `rank`'s run of consecutive files, under block.
std::size_t blockStart(std::size_t files, unsigned rank, unsigned ranks) { return files * rank / ranks; }

}  // namespace

bool countsFile(MpiDistribution distribution, std::size_t file, std::size_t files, unsigned rank, unsigned ranks) {
  if (distribution != MpiDistribution::Block) return file % ranks == rank;
  return blockStart(files, rank, ranks) <= file && file < blockStart(files, rank + 1, ranks);
}

void countRankFiles(Source& source, MpiOptions const& options, unsigned rank, unsigned ranks) {
  auto const files = source.fileList().size();
  if (files < 2) {
    throw Exception(std::string("--chunk file hands out whole input files, and this source reads ") +
                    (files ? "one" : "none") + ": give it several (root or rntuple: file= repeated, or files=LIST)");
  }
  for (std::size_t file = 0; file < files; ++file) {
    if (countsFile(options.distribution, file, files, rank, ranks)) source.fileEntries(file);
  }
}

std::vector<std::uint64_t> shareFileEntries(Source& source, MpiDistribution distribution, MpiSession const& session) {
  auto const files = source.fileList().size();
  std::vector<std::uint64_t> counted(files, 0), entries(files, 0);
  for (std::size_t file = 0; file < files; ++file) {
    // Counted as the job began: known, so no file opens here.
    if (countsFile(distribution, file, files, session.rank(), session.size())) counted[file] = source.fileEntries(file);
  }
  MPI_Allreduce(counted.data(), entries.data(), static_cast<int>(files), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  std::vector<std::uint64_t> starts{0};
  for (std::size_t file = 0; file < files; ++file) {
    source.learnFileEntries(file, entries[file]);
    starts.push_back(starts.back() + entries[file]);
  }
  return starts;
}

std::function<std::optional<std::size_t>()> filesOfRank(MpiDistribution distribution, std::size_t files, unsigned rank,
                                                        unsigned ranks, std::function<std::uint64_t()> claim) {
  using Next = std::optional<std::size_t>;
  switch (distribution) {
    case MpiDistribution::Queue:
      return [files, claim = std::move(claim)]() -> Next {
        auto const file = claim();
        return file < files ? Next(file) : std::nullopt;
      };
    case MpiDistribution::Block:
      return [file = blockStart(files, rank, ranks), end = blockStart(files, rank + 1, ranks)]() mutable -> Next {
        return file < end ? Next(file++) : std::nullopt;
      };
    case MpiDistribution::RoundRobin:
      return [file = std::size_t{rank}, files, ranks]() mutable -> Next {
        if (file >= files) return std::nullopt;
        return std::exchange(file, file + ranks);
      };
  }
  throw Exception("MPI: unknown distribution");
}

FileChunkDispenser::FileChunkDispenser(std::vector<std::uint64_t> starts, std::uint64_t limit,
                                       std::function<std::optional<std::size_t>()> nextFile)
    : starts_(std::move(starts)), limit_(limit ? std::min(limit, starts_.back()) : starts_.back()),
      nextFile_(std::move(nextFile)) {}

std::optional<std::uint64_t> FileChunkDispenser::next() {
  std::lock_guard lock(mutex_);
  while (next_ == end_) {  // (an empty file: on to the next)
    if (done_) return std::nullopt;
    auto const file = nextFile_();
    done_ = !file || *file + 1 >= starts_.size() || starts_[*file] >= limit_;
    if (done_) return std::nullopt;
    taken_.push_back(*file);
    next_ = starts_[*file];
    end_ = std::min(starts_[*file + 1], limit_);
  }
  return next_++;
}

std::vector<std::size_t> FileChunkDispenser::filesTaken() const {
  std::lock_guard lock(mutex_);
  return taken_;
}

}  // namespace lanes::node
